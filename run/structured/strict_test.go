package structured

import (
	"strings"
	"testing"
)

func TestFits(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		schema    string
		openai    string // "" fits; else a part of the reason
		anthropic string
	}{
		"strict triage": {schema: `{"type":"object","properties":{"label":{"type":"string","enum":["a"]},"n":{"type":["number","null"]}},"required":["label","n"],"additionalProperties":false}`},
		"optional property": {schema: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			openai: "not all required"},
		"open object":   {schema: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, openai: "additionalProperties", anthropic: "additionalProperties"},
		"array root":    {schema: `{"type":"array"}`, openai: "root", anthropic: "root"},
		"length limits": {schema: `{"type":"object","properties":{"a":{"type":"string","maxLength":3}},"required":["a"],"additionalProperties":false}`, openai: "/properties/a/maxLength", anthropic: "/properties/a/maxLength"},
		"numeric limits": {schema: `{"type":"object","properties":{"a":{"type":"number","minimum":0}},"required":["a"],"additionalProperties":false}`,
			anthropic: "/properties/a/minimum"},
		"nested open object": {schema: `{"type":"object","properties":{"o":{"type":"object","properties":{}}},"required":["o"],"additionalProperties":false}`,
			openai: "/properties/o", anthropic: "/properties/o"},
		"reference": {schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"required":["a"],"additionalProperties":false,"$defs":{"s":{"type":"string"}}}`,
			anthropic: "$defs"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tc.schema)
			for sub, want := range map[Subset]string{OpenAIStrict: tc.openai, AnthropicJSON: tc.anthropic} {
				ok, why := s.Fits(sub)
				if ok != (want == "") || !strings.Contains(why, want) {
					t.Errorf("subset %d: Fits = %v %q, want %q", sub, ok, why, want)
				}
			}
		})
	}
}
