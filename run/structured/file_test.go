package structured

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadFileConfined: the schema file may come from an untrusted
// checkout (the Action's json-schema input names one). A link there to
// a JSON file outside the workspace (a cloud credentials file) would
// compile — unknown keywords are ignored — and its text would go to the
// provider and into the session log, which the Action uploads; so a file
// named inside the workspace must stay inside it, links resolved. A
// device (/dev/zero, /dev/stdin) is refused unread, and so is a file
// over [MaxSchemaSize].
func TestLoadFileConfined(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	creds := filepath.Join(outside, "credentials.json")
	if err := os.WriteFile(creds, []byte(`{"auths":{"ghcr.io":{"auth":"s3cret"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("creds.json", creds)
	link("zero.json", "/dev/zero")
	if err := os.Mkdir(filepath.Join(ws, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTemp(t, ws, "triage.json", triage)
	link("schemas/ok.json", filepath.Join(ws, "triage.json"))
	writeTemp(t, ws, "big.json", `{"description":"`+strings.Repeat("x", MaxSchemaSize)+`"}`)
	for arg, want := range map[string]string{
		"creds.json":      "outside the workspace",
		"@zero.json":      "outside the workspace",
		"big.json":        "larger than",
		"schemas/ok.json": "",
		"triage.json":     "",
	} {
		s, err := LoadIn(arg, ws, ws)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", arg, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: error %v, want one saying %q", arg, err, want)
		case err == nil && strings.Contains(string(s.Raw), "s3cret"):
			t.Errorf("%s: the schema holds the credentials", arg)
		}
	}
	// Outside the workspace the user's own files are theirs to name.
	if _, err := LoadIn(creds, ws, ws); err != nil {
		t.Errorf("a file outside the workspace, named by the user: %v", err)
	}
	if _, err := Load("@"+filepath.Join(ws, "zero.json"), ""); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load of a link to /dev/zero: %v", err)
	}
}
