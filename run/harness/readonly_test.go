package harness

import (
	"testing"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/toolkit"
)

// TestApproverReadOnly pins which calls the approver calls read-only,
// the calls the engine may run at once: reads, and shell commands whose
// every fact the policy sees through and is a read; an MCP tool on its
// (configured) server's word.
func TestApproverReadOnly(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"src/a.go": "package a\n"})
	ws, err := toolkit.OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	pol, err := policy.Parse("test.toml", []byte(approverPolicy+"[[rule]]\nid = \"writes\"\ntool = \"write\"\ndecision = \"allow\"\npaths = [\"**\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ap := NewApprover(pol.InWorkspace(ws.Root()), ws, "", false)
	sh := func(c string) toolkit.Effects { return toolkit.Effects{Kind: toolkit.EffectExecute, Command: c} }
	src := []toolkit.PathRef{{Requested: "src/a.go", Resolved: "src/a.go"}}
	tests := map[string]struct {
		eff  toolkit.Effects
		want bool
	}{
		"read":                           {toolkit.Effects{Kind: toolkit.EffectRead, Paths: src}, true},
		"write":                          {toolkit.Effects{Kind: toolkit.EffectWrite, Paths: src}, false},
		"sleep and echo":                 {sh("sleep 0.5; echo 1"), true},
		"recursive grep":                 {sh("grep -rn x src"), true},
		"a reader in a pipeline":         {sh("cat src/a.go | wc -l"), true},
		"a program a rule allows":        {sh("go test ./..."), false},
		"a redirect writes":              {sh("echo x > src/b.txt"), false},
		"a plain writer":                 {sh("rm src/a.go"), false},
		"a background job":               {sh("sleep 1 &"), false},
		"an opaque expansion":            {sh("echo $(cat src/a.go)"), false},
		"mcp tool the server says reads": {toolkit.Effects{Kind: toolkit.EffectMCP, Tool: "docs/search", ReadOnlyHint: true}, true},
		"mcp tool without the claim":     {toolkit.Effects{Kind: toolkit.EffectMCP, Tool: "docs/search"}, false},
	}
	for name, tc := range tests {
		if v := ap.Judge("tool", tc.eff); v.ReadOnly != tc.want {
			t.Errorf("%s: read-only %v, want %v (verdict %d by %s: %s)", name, v.ReadOnly, tc.want, v.Kind, v.Rule, v.Reason)
		}
	}
}
