package structured

import "testing"

func TestChoose(t *testing.T) {
	t.Parallel()
	strict := `{"type":"object","properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false}`
	loose := `{"type":"object","properties":{"label":{"type":"string","maxLength":9}}}`
	tests := map[string]struct {
		schema string
		p      Provider
		mode   Mode
		strict bool
	}{
		"anthropic preset":          {strict, Provider{Type: "anthropic", Preset: "anthropic", Model: "claude-sonnet-5-5"}, Native, false},
		"openai preset strict":      {strict, Provider{Type: "openai", Preset: "openai", Model: "gpt-5.5"}, Native, true},
		"outside the subset":        {loose, Provider{Type: "openai", Preset: "openai", Model: "gpt-5.5"}, Tool, false},
		"gateway":                   {strict, Provider{Type: "openai", Preset: "openrouter", Model: "x"}, Tool, false},
		"custom entry":              {strict, Provider{Type: "anthropic", Model: "claude-sonnet-5-5"}, Tool, false},
		"old model":                 {strict, Provider{Type: "anthropic", Preset: "anthropic", Model: "claude-3-5-sonnet-latest"}, Tool, false},
		"old openai model":          {strict, Provider{Type: "openai", Preset: "openai", Model: "gpt-4-turbo"}, Tool, false},
		"override native, gateway":  {strict, Provider{Type: "openai", Preset: "ollama", Override: "native"}, Native, true},
		"override native, loose":    {loose, Provider{Type: "openai", Override: "native"}, Native, false},
		"override tool, on preset":  {strict, Provider{Type: "anthropic", Preset: "anthropic", Model: "claude-sonnet-5-5", Override: "tool"}, Tool, false},
		"array root on openai":      {`{"type":"array"}`, Provider{Type: "openai", Preset: "openai", Model: "gpt-5.5"}, Tool, false},
		"sonnet 4.5 is native":      {strict, Provider{Type: "anthropic", Preset: "anthropic", Model: "claude-sonnet-4-5"}, Native, false},
		"sonnet 4 dated is not one": {strict, Provider{Type: "anthropic", Preset: "anthropic", Model: "claude-sonnet-4-20250514"}, Tool, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tc.schema)
			plan := Choose(s, tc.p)
			if plan.Mode != tc.mode || plan.Why == "" {
				t.Fatalf("Choose = %v (%s), want %v", plan.Mode, plan.Why, tc.mode)
			}
			if (plan.Format != nil) != (tc.mode == Native) {
				t.Fatalf("Format = %+v for mode %v", plan.Format, plan.Mode)
			}
			if plan.Format != nil && (plan.Format.Strict != tc.strict || string(plan.Format.Schema) != string(s.Raw) || plan.Format.Name == "") {
				t.Errorf("Format = %+v, want strict %v", plan.Format, tc.strict)
			}
		})
	}
}
