package structured

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesOutsideRefs: a schema is one document — the one sent to
// the provider — so a $ref or $schema naming another file or a URL is
// refused before anything is read or fetched: a schema file in an
// untrusted checkout (the Action's json-schema input) must not make the
// run read ~/.aws, a device that never ends (/dev/zero) or the network.
// References inside the document and the published meta-schemas stay.
func TestLoadRefusesOutsideRefs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A file the reference would read: as a schema it would make the
	// answer an integer, so a run that read it would accept 5.
	secret := filepath.Join(dir, writeTemp(t, dir, "secret.json", `{"type":"integer"}`))
	tests := map[string]string{
		"file url":       `{"$ref":"file://` + filepath.ToSlash(secret) + `"}`,
		"relative file":  `{"$ref":"secret.json"}`,
		"device":         `{"$ref":"file:///dev/zero"}`,
		"remote":         `{"$ref":"http://127.0.0.1:1/s.json"}`,
		"nested":         `{"type":"object","properties":{"a":{"$ref":"secret.json#/x"}}}`,
		"meta elsewhere": `{"$schema":"file://` + filepath.ToSlash(secret) + `","type":"string"}`,
	}
	for name, schema := range tests {
		for _, src := range []string{"inline", "file"} {
			arg := schema
			if src == "file" {
				arg = "@" + writeTemp(t, dir, "s.json", schema)
			}
			s, err := Load(arg, dir)
			var se *Error
			if err == nil {
				t.Errorf("%s (%s): loaded; Validate(5) = %v", name, src, s.Validate([]byte("5")))
				continue
			}
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "$ref") && !strings.Contains(se.Msg, "$schema") {
				t.Errorf("%s (%s): error %v, want a structured.Error naming the reference", name, src, err)
			}
		}
	}
	for name, schema := range map[string]string{
		"internal": `{"$defs":{"n":{"type":"integer"}},"$ref":"#/$defs/n"}`,
		"meta":     `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"integer"}`,
		"draft 7":  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"integer"}`,
	} {
		s, err := Load(schema, dir)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if p := s.Validate([]byte("5")); p != nil {
			t.Errorf("%s: Validate(5) = %v", name, p)
		}
	}
}
