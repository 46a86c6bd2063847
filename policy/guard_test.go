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
	base, err := Parse("p.toml", []byte(guardPolicy))
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
		{ClassWrite, "state/other.jsonl", Allow, "writes", ""},
		{ClassRead, "state/s.jsonl", Allow, "reads", ""},
	}
	for _, tc := range tests {
		r := p.Decide(Action{Class: tc.class, Paths: []Path{{Requested: tc.path}}})
		if r.Decision != tc.want || r.Rule != tc.rule || (tc.why != "" && r.Reason != tc.why) {
			t.Errorf("%s %s: %s by %q (%s), want %s by %q", tc.class, tc.path, r.Decision, r.Rule, r.Reason, tc.want, tc.rule)
		}
	}
	// A shell command's writes are judged the same way: the file itself is
	// denied; a write that may replace, move or remove it with a directory
	// above it asks (a person may approve it, a headless run refuses it).
	shell := []struct {
		cmd  string
		want Decision
	}{
		{"echo x >> state/s.jsonl", Deny},
		{"truncate -s0 link/s.jsonl", Deny},
		{"rm -rf state", Ask},
		{"rm -R .", Ask},
		{"tar -xf a.tar", Ask},
		{"find . -delete", Ask},
		{"mv state elsewhere", Ask},
		{"rm -rf " + slash(filepath.Dir(outside)), Ask},
		{"cp a.txt .", Allow},
		{"rm -rf other", Allow},
		{"mv stateful x", Allow},
	}
	for _, tc := range shell {
		r := p.Decide(Action{Class: ClassShell, Command: tc.cmd, Dir: ws, Files: listTree})
		if r.Decision != tc.want || (tc.want != Allow && r.Rule != RuleGuard) {
			t.Errorf("%s: %s by %q (%s: %s), want %s", tc.cmd, r.Decision, r.Rule, r.Fact, r.Reason, tc.want)
		}
	}
	// The policy it came from guards nothing more.
	if r := base.InWorkspace(ws).Decide(Action{Class: ClassWrite, Paths: []Path{{Requested: "state/s.jsonl"}}}); r.Decision != Allow {
		t.Errorf("the unguarded policy: %s by %q", r.Decision, r.Rule)
	}
}

// listTree is the run's listing for Action.Files: every file and
// directory beneath dir on disk (none when dir does not exist).
func listTree(dir string) ([]string, bool) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if p != dir {
			out = append(out, p)
		}
		return nil
	})
	return out, err == nil
}

// guardPolicy allows every read and write, and the shell commands the
// guard test runs.
const guardPolicy = `
version = 1
[defaults]
decision = "deny"
[[rule]]
id = "writes"
tool = "write"
decision = "allow"
paths = ["**", ".git/**", "**/.git/**", "/**"]
[[rule]]
id = "reads"
tool = "read"
decision = "allow"
paths = ["**"]
[[rule]]
id = "shell"
tool = "shell"
decision = "allow"
commands = ["echo *", "truncate *", "rm *", "tar *", "find *", "mv *", "cp *"]
`
