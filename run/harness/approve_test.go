package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// approverPolicy allows go test, denies curl and reading .env, allows
// other reads and asks for the rest.
const approverPolicy = `version = 1
[defaults]
decision = "ask"
[tools]
read = "allow"
[[rule]]
id = "checks"
tool = "shell"
decision = "allow"
commands = ["go test ./..."]
[[rule]]
id = "no-net"
tool = "shell"
decision = "deny"
commands = ["curl *"]
reason = "offline"
[[rule]]
id = "secrets"
tool = "read"
decision = "deny"
paths = [".env"]
`

func TestApprover(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"src/a.go": "package a\n", ".env": "KEY=1\n"})
	spillDir := t.TempDir()
	spillFile := filepath.Join(spillDir, "stdin.txt")
	if err := os.WriteFile(spillFile, []byte("big\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := toolkit.OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.AddRoot(spillDir, false); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Parse("test.toml", []byte(approverPolicy))
	if err != nil {
		t.Fatal(err)
	}
	ap := NewApprover(pol.InWorkspace(ws.Root()), ws, spillDir, false)
	spill := filepath.ToSlash(spillFile)
	outside := filepath.ToSlash(filepath.Join(t.TempDir(), "x"))
	tests := []struct {
		name string
		eff  toolkit.Effects
		want agent.VerdictKind
		rule string
	}{
		{"allowed command", toolkit.Effects{Kind: toolkit.EffectExecute, Command: "go test ./..."}, agent.VerdictAllow, "checks"},
		{"denied command", toolkit.Effects{Kind: toolkit.EffectExecute, Command: "go test ./... && curl x"}, agent.VerdictDeny, "no-net"},
		{"unmatched command asks", toolkit.Effects{Kind: toolkit.EffectExecute, Command: "make"}, agent.VerdictAsk, "defaults.decision"},
		{"read allowed", toolkit.Effects{Kind: toolkit.EffectRead, Paths: []toolkit.PathRef{{Requested: "src/a.go", Resolved: "src/a.go"}}}, agent.VerdictAllow, "tools.read"},
		{"secret denied", toolkit.Effects{Kind: toolkit.EffectRead, Paths: []toolkit.PathRef{{Requested: ".env", Resolved: ".env"}}}, agent.VerdictDeny, "secrets"},
		{"write asks", toolkit.Effects{Kind: toolkit.EffectWrite, Paths: []toolkit.PathRef{{Requested: "src/a.go", Resolved: "src/a.go"}}}, agent.VerdictAsk, "defaults.decision"},
		{"spill read granted", toolkit.Effects{Kind: toolkit.EffectRead, Paths: []toolkit.PathRef{{Requested: spill, Resolved: spill}}}, agent.VerdictAllow, runnerGrant},
		{"spill write not granted", toolkit.Effects{Kind: toolkit.EffectWrite, Paths: []toolkit.PathRef{{Requested: spill, Resolved: spill}}}, agent.VerdictDeny, ""},
		{"outside read denied", toolkit.Effects{Kind: toolkit.EffectRead, Paths: []toolkit.PathRef{{Requested: outside, Resolved: outside}}}, agent.VerdictDeny, ""},
		{"unknown effect fails closed", toolkit.Effects{Kind: 0}, agent.VerdictDeny, policy.RuleGuard},
	}
	for _, tc := range tests {
		v := ap.Judge("tool", tc.eff)
		if v.Kind != tc.want || (tc.rule != "" && v.Rule != tc.rule) {
			t.Errorf("%s: verdict %d by %q (%s), want %d by %q", tc.name, v.Kind, v.Rule, v.Reason, tc.want, tc.rule)
		}
		if v.Kind != agent.VerdictAllow && v.Message == "" {
			t.Errorf("%s: a refusal without a message for the model", tc.name)
		}
		if strings.HasPrefix(v.Fact, "command: ") {
			t.Errorf("%s: fact %q keeps its kind prefix", tc.name, v.Fact)
		}
	}

	filter := ap.ReadFilter()
	for p, want := range map[string]bool{"src/a.go": true, ".env": false, spill: true, outside: false} {
		if got := filter(p); got != want {
			t.Errorf("readFilter(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestApproverGrepAsk checks that grep over the tree cannot show a file
// that a direct read in the same (headless) run would not get: with the
// read fallback "ask", `read secret.txt` is refused, so grep must leave the
// file out too, while a file an allow rule names is still searched.
func TestApproverGrepAsk(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"secret.txt": "token=hunter2\n", "src/a.go": "// token=public\n"})
	ws, err := toolkit.OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	pol, err := policy.Parse("ask.toml", []byte(`
[defaults]
decision = "deny"
[tools]
read = "ask"
[[rule]]
id = "tree"
tool = "read"
decision = "allow"
paths = [".", "src/**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	ap := NewApprover(pol.InWorkspace(ws.Root()), ws, "", false)
	if v := ap.Judge("read", toolkit.Effects{Kind: toolkit.EffectRead, Paths: []toolkit.PathRef{{Requested: "secret.txt", Resolved: "secret.txt"}}}); v.Kind != agent.VerdictAsk {
		t.Fatalf("read secret.txt: verdict %d, want ask (refused in a headless run)", v.Kind)
	}
	grep := toolkit.NewGrep(ws, ap.ReadFilter())
	args := []byte(`{"pattern": "token", "path": "."}`)
	eff, err := grep.Effects(args)
	if err != nil {
		t.Fatal(err)
	}
	if v := ap.Judge("grep", eff); v.Kind != agent.VerdictAllow {
		t.Fatalf("grep over the tree: verdict %d (%s), want allow", v.Kind, v.Reason)
	}
	res, err := grep.Run(t.Context(), args)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Content, "hunter2") {
		t.Errorf("grep shows a file whose read needs approval:\n%s", res.Content)
	}
	if !strings.Contains(res.Content, "token=public") {
		t.Errorf("grep lost the allowed file:\n%s", res.Content)
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
