package structured

import (
	"encoding/json"
	"testing"
)

func TestTool(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		schema  string
		tool    string // the tool's input schema
		wrapped bool
		input   string // a call's input
		answer  string // the answer in it
	}{
		"object root as given, annotations aside": {
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"T","description":"d","type":"object","properties":{"a":{"type":"string","description":"kept"}}}`,
			tool:   `{"properties":{"a":{"description":"kept","type":"string"}},"type":"object"}`,
			input:  `{"a":"x"}`, answer: `{"a":"x"}`,
		},
		"array root wrapped": {
			schema: `{"type":"array","items":{"type":"string"}}`, wrapped: true,
			tool:  `{"additionalProperties":false,"properties":{"value":{"items":{"type":"string"},"type":"array"}},"required":["value"],"type":"object"}`,
			input: `{"value":["a","b"]}`, answer: `["a","b"]`,
		},
		"pointer reference moved with the schema": {
			schema: `{"anyOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/anyOf/0"}}]}`, wrapped: true,
			tool:  `{"additionalProperties":false,"properties":{"value":{"anyOf":[{"type":"string"},{"items":{"$ref":"#/properties/value/anyOf/0"},"type":"array"}]}},"required":["value"],"type":"object"}`,
			input: `{"value":["x"]}`, answer: `["x"]`,
		},
		"string root with definitions and a self reference": {
			schema: `{"$defs":{"s":{"type":"string"}},"anyOf":[{"$ref":"#/$defs/s"},{"type":"array","items":{"$ref":"#"}}]}`, wrapped: true,
			tool:  `{"$defs":{"s":{"type":"string"}},"additionalProperties":false,"properties":{"value":{"anyOf":[{"$ref":"#/$defs/s"},{"items":{"$ref":"#/properties/value"},"type":"array"}]}},"required":["value"],"type":"object"}`,
			input: `{"value":"x"}`, answer: `"x"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tc.schema)
			spec := s.Tool()
			if spec.Name != ToolName || spec.Description == "" {
				t.Errorf("spec = %q %q", spec.Name, spec.Description)
			}
			if string(spec.Schema) != tc.tool {
				t.Errorf("tool schema = %s\nwant %s", spec.Schema, tc.tool)
			}
			if _, err := Parse(spec.Schema, "tool"); err != nil {
				t.Errorf("the tool schema does not compile: %v", err)
			}
			if s.Wrapped() != tc.wrapped {
				t.Errorf("Wrapped = %v", s.Wrapped())
			}
			got, err := s.Answer(json.RawMessage(tc.input))
			if err != nil || string(got) != tc.answer {
				t.Errorf("Answer = %s, %v; want %s", got, err, tc.answer)
			}
		})
	}
}

// FuzzTool: the final tool's input schema accepts what the user's schema
// does. Property: for an object root, the tool's schema accepts a document
// exactly when the user's does; for a wrapped root, the tool's schema
// accepts {"value": v} exactly when the user's accepts v.
func FuzzTool(f *testing.F) {
	f.Add(`{"type":"object","title":"x","properties":{"a":{"type":"integer"}},"required":["a"]}`, `{"a":1}`)
	f.Add(`{"type":"array","items":{"type":"string"},"minItems":1}`, `["a"]`)
	f.Add(`{"$defs":{"n":{"type":"number"}},"anyOf":[{"$ref":"#/$defs/n"},{"type":"array","items":{"$ref":"#"}}]}`, `[1,[2]]`)
	f.Add(`{"enum":["a","b"]}`, `"c"`)
	f.Add(`true`, `null`)
	f.Fuzz(func(t *testing.T, schema, doc string) {
		s, err := Parse([]byte(schema), Inline)
		if err != nil || !json.Valid([]byte(doc)) {
			return
		}
		tool, err := Parse(s.Tool().Schema, "tool")
		if err != nil {
			t.Fatalf("the tool schema of %s does not compile: %v", schema, err)
		}
		input := []byte(doc)
		if s.Wrapped() {
			input = []byte(`{"value":` + doc + `}`)
		}
		user, viaTool := len(s.Validate([]byte(doc))) == 0, len(tool.Validate(input)) == 0
		if user != viaTool {
			t.Errorf("schema %s, doc %s: the user's schema accepts it %v, the tool's %v", schema, doc, user, viaTool)
		}
	})
}
