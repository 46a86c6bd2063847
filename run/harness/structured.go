package harness

import (
	"encoding/json"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/structured"
)

// withStructuredOutput sets --json-schema up on the agent's options: the
// provider's native format or the final tool (as [structured.Choose]
// decides for the provider, its model and structured_output), a line of
// a headless run's system prompt that says how to answer, and the check
// of the answer after --verify's. It returns the check's slot: nil
// without --json-schema, and in line mode always a slot (empty without
// one), which /schema fills for the next lines.
func withStructuredOutput(s Settings, opts *agent.Options, notice func(string)) *structured.Slot {
	sc := s.JSONSchema
	if sc == nil {
		if !s.LineMode {
			return nil
		}
		slot := structured.NewSlot(nil)
		opts.Verifiers = append(opts.Verifiers, slot)
		return slot
	}
	plan := s.StructuredPlan(sc, s.Provider.Model)
	notice("--json-schema: the answer is asked for with the " + plan.Mode.String() + " form (" + plan.Why + ")")
	if plan.Mode == structured.Native {
		opts.Format = plan.Format
	} else {
		opts.FinalTool = sc.Tool()
	}
	if !s.LineMode {
		// A chat's system prompt stays the same when /schema changes;
		// the format or the tool's description says how to answer.
		opts.System += "\n\n" + plan.Instruction()
	}
	slot := structured.NewSlot(structured.NewCheck(sc, structured.CheckOptions{Retries: s.JSONSchemaRetries, Tool: plan.Mode == structured.Tool, Redact: opts.Redact}))
	opts.Verifiers = append(opts.Verifiers, slot)
	return slot
}

// StructuredPlan is how the run's provider is asked for sc with model.
func (s Settings) StructuredPlan(sc *structured.Schema, model string) structured.Plan {
	preset := ""
	if s.Provider.Preset {
		preset = s.Provider.Name
	}
	return structured.Choose(sc, structured.Provider{Type: s.Provider.Type, Preset: preset, Model: model, Override: s.Provider.StructuredOutput})
}

// SchemaRaw is --json-schema as the session records it; nil without one.
func (s Settings) SchemaRaw() json.RawMessage {
	if s.JSONSchema == nil {
		return nil
	}
	return s.JSONSchema.Raw
}
