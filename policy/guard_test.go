package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWithGuarded checks that a guarded file is denied to every write,
// whatever the rules allow and whatever name the write gives it, and
// that reads and other files are not affected.
func TestWithGuarded(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("state", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "cas.jsonl")
	base, err := Parse("p.toml", []byte(gitDirPolicy))
	if err != nil {
		t.Fatal(err)
	}
	p := base.InWorkspace(ws).WithGuarded(
		Guarded{Path: filepath.Join(ws, "link", "s.jsonl"), What: "the run's session log"}, // named through the link
		Guarded{Path: outside, What: "the run's cassette"},
		Guarded{}, // no file: nothing guarded
	)
	slash := filepath.ToSlash
	tests := []struct {
		class Class
		path  string
		want  Decision
		rule  string
		why   string
	}{
		{ClassWrite, "state/s.jsonl", Deny, RuleGuard, "the run's session log cannot be written"},
		{ClassWrite, "./state/../state/s.jsonl", Deny, RuleGuard, "the run's session log cannot be written"},
		{ClassWrite, "link/s.jsonl", Deny, RuleGuard, "the run's session log cannot be written"},
		{ClassWrite, "STATE/S.JSONL", Deny, RuleGuard, "the run's session log cannot be written"},
		{ClassWrite, slash(filepath.Join(ws, "state", "s.jsonl")), Deny, RuleGuard, "the run's session log cannot be written"},
		{ClassWrite, slash(outside), Deny, RuleGuard, "the run's cassette cannot be written"},
		{ClassWrite, ".rubichan/policy.toml", Deny, RuleGuard, "the policy file cannot be written"},
		{ClassWrite, "state/other.jsonl", Allow, "all", ""},
		{ClassRead, "state/s.jsonl", Allow, "tools.read", ""},
	}
	for _, tc := range tests {
		r := p.Decide(Action{Class: tc.class, Paths: []Path{{Requested: tc.path}}})
		if r.Decision != tc.want || r.Rule != tc.rule || (tc.why != "" && r.Reason != tc.why) {
			t.Errorf("%s %s: %s by %q (%s), want %s by %q", tc.class, tc.path, r.Decision, r.Rule, r.Reason, tc.want, tc.rule)
		}
	}
	// A shell command's redirect is a write like any other.
	if r := p.Decide(Action{Class: ClassShell, Command: "echo x >> state/s.jsonl", Dir: ws}); r.Decision != Deny || r.Rule != RuleGuard {
		t.Errorf("redirect: %s by %q (%s)", r.Decision, r.Rule, r.Reason)
	}
	// The policy it came from guards nothing more.
	if r := base.InWorkspace(ws).Decide(Action{Class: ClassWrite, Paths: []Path{{Requested: "state/s.jsonl"}}}); r.Decision != Allow {
		t.Errorf("the unguarded policy: %s by %q", r.Decision, r.Rule)
	}
}
