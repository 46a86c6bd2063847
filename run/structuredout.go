package run

import (
	"encoding/json"
	"strconv"

	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/structured"
	"github.com/urfave/cli/v2"
)

// loadJSONSchema reads and compiles --json-schema before anything else
// runs: a schema that cannot be used is a usage error (exit 2) naming
// its file and the pointer into it.
func (cfg *execConfig) loadJSONSchema(c *cli.Context) error {
	n, err := strconv.Atoi(c.String("json-schema-retries"))
	if err != nil || n < 0 {
		return usagef("--json-schema-retries must be a number, 0 or more, not %q", c.String("json-schema-retries"))
	}
	cfg.JSONSchemaRetries = n
	arg := c.String("json-schema")
	if arg == "" {
		return nil
	}
	ws := cfg.Dir // not yet made absolute: "" is the current directory
	if ws == "" {
		ws = "."
	}
	s, err := structured.LoadIn(arg, "", ws)
	if err != nil {
		return usagef("--json-schema: %v", err)
	}
	cfg.JSONSchema = s
	return nil
}

// withStructuredOutput sets --json-schema up on the loop's configuration:
// the provider's native format or the final tool (as [structured.Choose]
// decides for the provider, its model and structured_output), a line of
// a headless run's system prompt that says how to answer, and the check of the answer
// after --verify's. It returns the check's slot: nil without
// --json-schema, and in line mode always a slot (empty without one),
// which /schema fills for the next lines.
func withStructuredOutput(cfg execConfig, lc *loopConfig, notice func(string)) *structured.Slot {
	s := cfg.JSONSchema
	if s == nil {
		if !cfg.chat {
			return nil
		}
		slot := structured.NewSlot(nil)
		lc.Verifiers = append(lc.Verifiers, slot)
		return slot
	}
	plan := cfg.structuredPlan(s, cfg.Model)
	notice("--json-schema: the answer is asked for with the " + plan.Mode.String() + " form (" + plan.Why + ")")
	if plan.Mode == structured.Native {
		lc.Format = plan.Format
	} else {
		lc.FinalTool = s.Tool()
	}
	if !cfg.chat {
		// A chat's system prompt stays the same when /schema changes;
		// the format or the tool's description says how to answer.
		lc.System += "\n\n" + plan.Instruction()
	}
	slot := structured.NewSlot(structured.NewCheck(s, structured.CheckOptions{Retries: cfg.JSONSchemaRetries, Tool: plan.Mode == structured.Tool, Redact: lc.Redact}))
	lc.Verifiers = append(lc.Verifiers, slot)
	return slot
}

// structuredPlan is how the run's provider is asked for s with model.
func (cfg execConfig) structuredPlan(s *structured.Schema, model string) structured.Plan {
	preset := ""
	if cfg.Resolved.Preset {
		preset = cfg.Resolved.Name
	}
	return structured.Choose(s, structured.Provider{Type: cfg.Resolved.Type, Preset: preset, Model: model, Override: cfg.Resolved.StructuredOutput})
}

// resumedJSONSchema keeps the schema of the session a run resumes when
// the run gives none (a schema the session recorded is compiled again: a
// bad one is a usage error naming the session).
func (cfg *execConfig) resumedJSONSchema(env environment) error {
	if cfg.JSONSchema != nil {
		return nil
	}
	raw, path, err := harness.ResumedSchema(cfg.sessionFlags.settings(), cfg.sessionDir(env), cfg.Dir)
	if err != nil || raw == nil {
		return err
	}
	s, err := structured.Parse(raw, path)
	if err != nil {
		return usagef("--json-schema of the resumed session: %v", err)
	}
	cfg.JSONSchema = s
	return nil
}

// schemaRaw is --json-schema as the session records it; nil without one.
func (cfg execConfig) schemaRaw() json.RawMessage {
	if cfg.JSONSchema == nil {
		return nil
	}
	return cfg.JSONSchema.Raw
}
