package structured

import (
	"bytes"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// TestValidateAgreesWithOracle: the binary's validator (google's
// jsonschema-go) accepts exactly the documents the reference validator
// the tests keep (santhosh-tekuri/jsonschema) accepts, for the schemas
// the package's tests use; and it names at least one problem for each
// document it refuses.
func TestValidateAgreesWithOracle(t *testing.T) {
	t.Parallel()
	schemas := []string{
		triage,
		`{"type":"array","items":{"type":"string"},"minItems":1}`,
		`{"$defs":{"n":{"type":"number"}},"anyOf":[{"$ref":"#/$defs/n"},{"type":"array","items":{"$ref":"#"}}]}`,
		`{"enum":["a","b"]}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":2}},"required":["a"],"additionalProperties":{"type":"string"}}`,
		`{"prefixItems":[{"type":"string"},{"const":1}],"items":false}`,
		`{"allOf":[{"type":"object","properties":{"a":{"maxLength":2}}},{"required":["b"]}]}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/definitions/s"}}}`,
		`{"oneOf":[{"type":"integer"},{"type":"number","multipleOf":0.5}]}`,
		`{"type":"object","patternProperties":{"^x":{"type":"boolean"}},"unevaluatedProperties":false}`,
		`true`, `false`,
	}
	docs := []string{`null`, `true`, `1`, `2.5`, `3`, `"a"`, `"c"`, `"abc"`, `[]`, `["a"]`, `["a",1]`, `["a",1,2]`, `[1,[2]]`, `[1,["x"]]`,
		`{}`, `{"a":1}`, `{"a":3}`, `{"a":3,"z":"s"}`, `{"a":3,"z":1}`, `{"label":"bug"}`, `{"label":"x","confidence":2}`,
		`{"a":"abc","b":1}`, `{"a":"ab","b":1}`, `{"x":"s"}`, `{"x":1}`, `{"xa":true}`, `{"xa":1}`, `{"y":1}`}
	for _, schema := range schemas {
		s := mustParse(t, schema)
		doc, err := santhosh.UnmarshalJSON(bytes.NewReader([]byte(schema)))
		if err != nil {
			t.Fatal(err)
		}
		c := santhosh.NewCompiler()
		c.DefaultDraft(santhosh.Draft2020)
		if err := c.AddResource("s.json", doc); err != nil {
			t.Fatal(err)
		}
		oracle, err := c.Compile("s.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			inst, _ := santhosh.UnmarshalJSON(bytes.NewReader([]byte(d)))
			want := oracle.Validate(inst) == nil
			ps := s.Validate([]byte(d))
			if got := len(ps) == 0; got != want {
				t.Errorf("schema %s, doc %s: valid %v, the oracle says %v (%v)", schema, d, got, want, ps)
			}
			for _, p := range ps {
				if p.Message == "" {
					t.Errorf("schema %s, doc %s: a problem at %q without a message", schema, d, p.Pointer)
				}
			}
		}
	}
}
