package structured

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const triage = `{"type":"object","properties":{"label":{"type":"string","enum":["flaky","bug","infra"]},"confidence":{"type":"number","minimum":0,"maximum":1}},"required":["label"],"additionalProperties":false}`

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "triage.json"), []byte(triage), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"type":"object","properties":{"x":{"type":5}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notjson.json"), []byte(`{"type":`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		arg     string
		source  string
		file    string // of the error
		pointer string // of the error
	}{
		"inline":         {arg: " " + triage, source: Inline},
		"at file":        {arg: "@triage.json", source: filepath.Join(dir, "triage.json")},
		"path":           {arg: "triage.json", source: filepath.Join(dir, "triage.json")},
		"bad type":       {arg: "bad.json", file: filepath.Join(dir, "bad.json"), pointer: "/properties/x/type"},
		"bad inline":     {arg: `{"type":"object","required":"label"}`, file: Inline, pointer: "/required"},
		"not json":       {arg: "@notjson.json", file: filepath.Join(dir, "notjson.json")},
		"bad regex":      {arg: `{"type":"string","pattern":"("}`, file: Inline, pointer: "/pattern"},
		"ref loop":       {arg: `{"anyOf":[{"type":"string"},{"$ref":"#"}]}`, file: Inline, pointer: "/anyOf/1/$ref"},
		"old draft":      {arg: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"string"}`, file: Inline, pointer: "/$schema"},
		"bad items":      {arg: `{"type":"array","items":{"minItems":"2"}}`, file: Inline, pointer: "/items/minItems"},
		"unknown type":   {arg: `{"type":"object","properties":{"label":{"type":"strin"}}}`, file: Inline, pointer: "/properties/label/type"},
		"type list":      {arg: `{"type":["string","nul"]}`, file: Inline, pointer: "/type"},
		"negative count": {arg: `{"maxLength":-1}`, file: Inline, pointer: "/maxLength"},
		"zero multiple":  {arg: `{"multipleOf":0}`, file: Inline, pointer: "/multipleOf"},
		"not an object":  {arg: "@" + writeTemp(t, dir, "num.json", "5"), file: filepath.Join(dir, "num.json")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := Load(tc.arg, dir)
			if tc.file != "" {
				var se *Error
				if !errors.As(err, &se) {
					t.Fatalf("Load = %v, want a *Error", err)
				}
				if se.File != tc.file || se.Pointer != tc.pointer {
					t.Errorf("error names %q %q, want %q %q (%v)", se.File, se.Pointer, tc.file, tc.pointer, err)
				}
				if !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.pointer) {
					t.Errorf("message %q lacks the file or the pointer", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Source != tc.source || string(s.Raw) != triage || len(s.Digest) != 64 {
				t.Errorf("schema = %q %s %q", s.Source, s.Raw, s.Digest)
			}
		})
	}
}

func writeTemp(t *testing.T, dir, name, data string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestValidate(t *testing.T) {
	t.Parallel()
	s := mustParse(t, triage)
	tests := map[string]struct {
		doc  string
		want []string // pointers of the problems
	}{
		"valid":          {doc: `{"label":"flaky","confidence":0.5}`},
		"missing label":  {doc: `{"confidence":0.5}`, want: []string{""}},
		"bad enum":       {doc: `{"label":"x"}`, want: []string{"/label"}},
		"two problems":   {doc: `{"label":1,"confidence":2}`, want: []string{"/confidence", "/label"}},
		"extra property": {doc: `{"label":"bug","more":1}`, want: []string{""}},
		"not json":       {doc: `label: bug`, want: []string{""}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ps := s.Validate([]byte(tc.doc))
			var got []string
			for _, p := range ps {
				if p.Message == "" {
					t.Errorf("problem at %q has no message", p.Pointer)
				}
				got = append(got, p.Pointer)
			}
			slicesSort(got)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") || len(got) != len(tc.want) {
				t.Errorf("problems at %q, want %q (%v)", got, tc.want, ps)
			}
		})
	}
}

// mustParse parses an inline schema the test knows to be good.
func mustParse(tb testing.TB, schema string) *Schema {
	tb.Helper()
	s, err := Parse([]byte(schema), Inline)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
