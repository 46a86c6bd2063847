package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWithAllowAll checks that --allow-all allows every call the policy
// would ask or deny (a deny rule, opaque constructs, paths outside the
// workspace, mcp calls), and keeps every refusal no policy loosens: the
// built-in secret denials (file tools and shell reads), the policy file,
// the guarded files, and writes in a .git directory.
func TestWithAllowAll(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "build", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	base, err := Parse("p.toml", []byte(`
[defaults]
decision = "deny"
[[rule]]
id = "no-curl"
tool = "shell"
decision = "deny"
commands = ["curl *"]
[[rule]]
id = "ask-writes"
tool = "write"
decision = "ask"
paths = ["**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := base.InWorkspace(ws).WithGuarded(Guarded{Path: filepath.Join(ws, "state", "s.jsonl"), What: "the run's session log"})
	all := p.WithAllowAll()
	if p.AllowAll() || !all.AllowAll() {
		t.Fatalf("AllowAll: %v before, %v after", p.AllowAll(), all.AllowAll())
	}
	sh := func(cmd string) Action { return Action{Class: ClassShell, Command: cmd} }
	file := func(c Class, name string) Action { return Action{Class: c, Paths: []Path{{Requested: name}}} }
	tests := []struct {
		name string
		a    Action
		want Decision
		rule string
	}{
		{"a command the default denies", sh("go test ./..."), Allow, RuleAllowAll},
		{"an opaque expansion", sh("echo $SECRET_FROM_ENV"), Allow, RuleAllowAll},
		{"a nested shell", sh("sh -c 'make all'"), Allow, RuleAllowAll},
		{"a read outside the workspace", sh("cat /usr/include/stdio.h"), Allow, RuleAllowAll},
		{"a background job", sh("sleep 1 &"), Allow, RuleAllowAll},
		{"a write an ask rule names", file(ClassWrite, "src/main.go"), Allow, RuleAllowAll},
		{"a read the default denies", file(ClassRead, "README.md"), Allow, RuleAllowAll},
		{"an mcp call", Action{Class: ClassMCP, Name: "srv/tool"}, Allow, RuleAllowAll},
		{"rm -rf of a plain tree", Action{Class: ClassShell, Command: "rm -rf build", Files: func(string) ([]string, bool) {
			return []string{"build/sub", "build/sub/a.o"}, true
		}}, Allow, RuleAllowAll},
		// What stays.
		{"a command a deny rule names", sh("curl -s https://example.com"), Deny, "no-curl"},
		{"a deny rule under a wrapper", sh("env curl -s https://example.com"), Deny, "no-curl"},
		{"cat .env by the read tool", file(ClassRead, ".env"), Deny, RuleSecrets},
		{"a key by the read tool", file(ClassRead, "certs/server.key"), Deny, RuleSecrets},
		{"cat .env in the shell", sh("cat .env"), Deny, RuleSecrets},
		{"a write of .git/config", file(ClassWrite, ".git/config"), Ask, RuleGuard},
		{"a hook written by the shell", sh("echo x > .git/hooks/pre-commit"), Ask, RuleGuard},
		{"a write of the policy file", file(ClassWrite, ".rubichan/policy.toml"), Deny, RuleGuard},
		{"the policy file by the shell", sh("echo x > .rubichan/policy.toml"), Deny, RuleGuard},
		{"a write of the session log", file(ClassWrite, "state/s.jsonl"), Deny, RuleGuard},
		{"rm -rf above the session log", sh("rm -rf state"), Ask, RuleGuard},
	}
	for _, tc := range tests {
		r := all.Decide(tc.a)
		if r.Decision != tc.want || r.Rule != tc.rule {
			t.Errorf("%s: %s by %q (%s), want %s by %q", tc.name, r.Decision, r.Rule, r.Reason, tc.want, tc.rule)
		}
		if r.Decision == Allow && !strings.Contains(r.Reason, "--allow-all") {
			t.Errorf("%s: reason %q does not name --allow-all", tc.name, r.Reason)
		}
		if r.Decision != Allow && r.Remedy == "" {
			t.Errorf("%s: a refusal under --allow-all without a remedy", tc.name)
		}
		if r.Decision != Allow && strings.Contains(r.Remedy, "--allow-all allows") {
			t.Errorf("%s: remedy %q offers --allow-all, which is on", tc.name, r.Remedy)
		}
		// --on-ask defer lets a person approve an ask, never a denial.
		if r.Decision == Deny && strings.Contains(r.Remedy, "--on-ask defer") {
			t.Errorf("%s: remedy %q offers --on-ask defer for a denial", tc.name, r.Remedy)
		}
	}
	// The policy it came from is unchanged.
	if r := p.Decide(sh("go test ./...")); r.Decision != Deny {
		t.Errorf("the original policy now says %s for go test", r.Decision)
	}
}

// TestWithAllowAllSecretsOff checks that a policy file that turned the
// secret denials off keeps them off under --allow-all (nothing denies
// .env), while the guards stay.
func TestWithAllowAllSecretsOff(t *testing.T) {
	t.Parallel()
	base, err := Parse("p.toml", []byte("[defaults]\nsecret_denials = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	all := base.InWorkspace(t.TempDir()).WithAllowAll()
	if r := all.Decide(Action{Class: ClassRead, Paths: []Path{{Requested: ".env"}}}); r.Decision != Allow {
		t.Errorf(".env with secret_denials = false: %s by %s", r.Decision, r.Rule)
	}
	if r := all.Decide(Action{Class: ClassWrite, Paths: []Path{{Requested: ".rubichan/policy.toml"}}}); r.Decision != Deny {
		t.Errorf("policy file: %s by %s", r.Decision, r.Rule)
	}
}
