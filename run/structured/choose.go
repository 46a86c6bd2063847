package structured

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/llm"
)

// Mode is how the model is asked for the schema.
type Mode uint8

// The modes.
const (
	// Native asks with the provider's own structured-output field: the
	// final answer is the text of the last message.
	Native Mode = iota + 1
	// Tool offers the synthetic final tool: its valid call is the answer.
	Tool
)

func (m Mode) String() string {
	if m == Native {
		return "native"
	}
	return "tool"
}

// Provider is what the choice of a [Mode] looks at.
type Provider struct {
	Type     string // "anthropic" or "openai" (Chat Completions or Responses)
	Preset   string // the built-in preset's name; "" for a [providers] entry
	Model    string
	Override string // structured_output: "native", "tool" or ""
}

// Plan is how a run asks for its schema.
type Plan struct {
	Mode   Mode
	Format *llm.JSONFormat // Native: the request's format; nil for Tool
	Why    string          // the reason of the choice, for --verbose
}

// noNative are the models of the native presets that predate structured
// output: Anthropic's before Claude Sonnet 4.5 / Opus 4.5 / Haiku 4.5
// (https://platform.claude.com/docs/en/build-with-claude/structured-outputs),
// OpenAI's before gpt-4o-2024-08-06
// (https://platform.openai.com/docs/guides/structured-outputs#supported-models).
var noNative = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(claude-(instant|2|3)|claude-(opus|sonnet)-4-(0|1|2025)|claude-(opus|sonnet)-4$|gpt-3\.5|gpt-4($|-|o-2024-05))`)
})

// Choose picks how to ask p for s: the override when set; else natively
// on the anthropic and openai presets (their APIs document the field) for
// a model that has it and a schema inside the strict subset, and the final
// tool otherwise — OpenAI-compatible gateways and local servers may
// ignore or refuse the field, and a schema outside the subset would be
// refused (so the tool is used rather than failing).
func Choose(s *Schema, p Provider) Plan {
	sub := OpenAIStrict
	if p.Type == "anthropic" {
		sub = AnthropicJSON
	}
	fits, why := s.Fits(sub)
	switch {
	case p.Override == "tool":
		return Plan{Mode: Tool, Why: "structured_output = \"tool\""}
	case p.Override == "native":
		return Plan{Mode: Native, Format: s.format(p.Type, fits), Why: "structured_output = \"native\""}
	case p.Preset != "anthropic" && p.Preset != "openai":
		return Plan{Mode: Tool, Why: fmt.Sprintf("provider %s may not support a native schema", orCustom(p.Preset))}
	case noNative().MatchString(strings.ToLower(p.Model)):
		return Plan{Mode: Tool, Why: "model " + p.Model + " predates structured output"}
	case !fits:
		return Plan{Mode: Tool, Why: "the schema is outside the strict subset: " + why}
	}
	return Plan{Mode: Native, Format: s.format(p.Type, true), Why: "provider " + p.Preset + " supports it"}
}

// orCustom names a provider that is no preset.
func orCustom(preset string) string {
	if preset == "" {
		return "entry"
	}
	return preset
}

// format is the native request of s: strict when it fits OpenAI's
// subset (Anthropic's field has no strict flag).
func (s *Schema) format(typ string, fits bool) *llm.JSONFormat {
	return &llm.JSONFormat{Name: "answer", Schema: s.Raw, Strict: fits && typ != "anthropic"}
}

// Instruction is the system prompt's line on how to give the answer.
func (p Plan) Instruction() string {
	if p.Mode == Native {
		return "When you are done, your final message must be one JSON document that matches the JSON Schema of the response format, and nothing else: no prose, no code fence."
	}
	return "When you are done, give your final answer by calling the " + ToolName + " tool, whose input schema is the required format; do not write the answer as text. The run ends with that call."
}
