package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
)

// policyWorkspace builds a workspace on disk: files, a symlink in src/ to
// a secret, a symlink that escapes, and a link to the git hooks.
func policyWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	outside := t.TempDir()
	for _, f := range []string{"src/a.go", "secrets/key", ".env", ".git/hooks/.keep", "docs/x.md"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"src/key":  "../secrets/key",
		"src/esc":  filepath.Join(outside, "f"),
		"src/hook": "../.git/hooks/pre-commit",
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runApp runs the CLI with buffers and returns stdout, stderr (with the
// error printed as Main prints it) and the exit code. Tests that call it
// do not run in parallel: urfave/cli applies its global help and version
// flags on every run.
func runApp(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := newProcessApp(strings.NewReader(""), &stdout, &stderr).Run(append([]string{"rubichan"}, args...))
	if err != nil {
		fmt.Fprintf(&stderr, "rubichan: %v\n", err)
	}
	return stdout.String(), stderr.String(), exit.Code(err)
}

func TestPolicyCheck(t *testing.T) {
	ws := policyWorkspace(t)
	strict, err := filepath.Abs("../testdata/policy/strict.toml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		decision string // "" when the command must fail
		rule     string
		code     int
		stderr   string // a substring stderr must hold
	}{
		{"allowed", []string{"--tool", "shell", "--", "git status"}, "allow", "checks", 0, ""},
		{"quoted", []string{"--tool", "shell", "--", `"git" 'status' 2>&1`}, "allow", "checks", 0, ""},
		{"chained deny", []string{"--tool", "shell", "--", "git status && rm -rf /"}, "deny", "destructive", 0, ""},
		{"substitution", []string{"--tool", "shell", "--", "go test ./... $(curl x)"}, "deny", "destructive", 0, ""},
		{"redirect into hooks", []string{"--tool", "shell", "--", "git status > .git/hooks/pre-commit"}, "deny", "defaults.decision", 0, ""},
		{"redirect through link", []string{"--tool", "shell", "--", "git status > src/hook"}, "deny", "defaults.decision", 0, ""},
		{"redirect to src", []string{"--tool", "shell", "--", "git status > src/log"}, "allow", "src", 0, ""},
		{"read file", []string{"--tool", "read", "--", "src/a.go"}, "allow", "read-all", 0, ""},
		{"read dotdot secret", []string{"--tool", "read", "--", "src/../.env"}, "deny", "secrets", 0, ""},
		{"read through link", []string{"--tool", "read", "--", "src/key"}, "deny", "secrets", 0, ""},
		{"read escape", []string{"--tool", "read", "--", "../../etc/passwd"}, "deny", "guard", 0, ""},
		{"read absolute", []string{"--tool", "read", "--", "/etc/passwd"}, "deny", "guard", 0, ""},
		{"read escaping link", []string{"--tool", "read", "--", "src/esc"}, "deny", "guard", 0, ""},
		{"write src", []string{"--tool", "write", "--", "src/new.go"}, "allow", "src", 0, ""},
		{"write docs", []string{"--tool", "write", "--", "docs/x.md"}, "deny", "defaults.decision", 0, ""},
		{"write through link", []string{"--tool", "write", "--", "src/hook"}, "deny", "defaults.decision", 0, ""},
		{"write policy file", []string{"--tool", "write", "--", ".rubichan/policy.toml"}, "deny", "guard", 0, ""},
		{"cli allow", []string{"--allow", "write:docs/**", "--tool", "write", "--", "docs/x.md"}, "allow", "--allow write:docs/**", 0, ""},
		{"cli deny wins", []string{"--deny", "write:src/a.go", "--tool", "write", "--", "src/a.go"}, "deny", "--deny write:src/a.go", 0, ""},
		{"bad cli rule", []string{"--allow", "net:x", "--tool", "shell", "--", "ls"}, "", "", 2, "command line"},
		{"missing tool", []string{"--", "ls"}, "", "", 2, "tool"},
		{"unknown tool", []string{"--tool", "net", "--", "ls"}, "", "", 2, "unknown tool class"},
		{"two arguments", []string{"--tool", "shell", "--", "git", "status"}, "", "", 2, "quoted as one argument"},
		{"no argument", []string{"--tool", "read"}, "", "", 2, "one path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"policy", "check", "--policy", strict, "-C", ws, "--json"}, tc.args...)
			stdout, stderr, code := runApp(t, args...)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
			if tc.decision == "" {
				if stdout != "" {
					t.Errorf("stdout on failure: %q", stdout)
				}
				return
			}
			var got checkJSON
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
			}
			if got.Decision != tc.decision || got.Rule != tc.rule {
				t.Errorf("got %s by %q (%s: %s), want %s by %q", got.Decision, got.Rule, got.Fact, got.Reason, tc.decision, tc.rule)
			}
			if len(got.Facts) == 0 {
				t.Errorf("no facts: %s", stdout)
			}
		})
	}
}

func TestPolicyCheckJSONShape(t *testing.T) {
	ws := policyWorkspace(t)
	stdout, _, code := runApp(t, "policy", "check", "--policy", "../testdata/policy/strict.toml", "-C", ws,
		"--json", "--tool", "shell", "--", "git status; rm -rf ~ &")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"decision", "rule", "reason", "facts"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing key %q in %s", k, stdout)
		}
	}
	kinds := map[string]bool{}
	for _, f := range got["facts"].([]any) {
		m := f.(map[string]any)
		for _, k := range []string{"kind", "value", "decision", "rule"} {
			if _, ok := m[k].(string); !ok {
				t.Errorf("fact lacks string %q: %v", k, m)
			}
		}
		kinds[m["kind"].(string)] = true
	}
	if !kinds["command"] || !kinds["background"] {
		t.Errorf("fact kinds %v, want command and background", kinds)
	}
}

func TestPolicyCheckText(t *testing.T) {
	ws := policyWorkspace(t)
	stdout, stderr, code := runApp(t, "policy", "check", "--policy", "../testdata/policy/strict.toml", "-C", ws,
		"--tool", "shell", "--", "git status && curl x | sh")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"policy:   ../testdata/policy/strict.toml\n",
		"call:     shell command \"git status && curl x | sh\"\n",
		"allow  command  git status", "rule checks: matches \"git status\"",
		"deny   command  curl x", "rule destructive: matches \"curl *\": no network or destructive commands",
		"decision: deny\n", "rule:     destructive\n", "fact:     command: curl x\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestPolicyCheckInvalidPolicy(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("version = 1\n\n[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"git * x\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runApp(t, "policy", "check", "--policy", bad, "-C", dir, "--tool", "shell", "--", "ls")
	if code != exit.Usage || stdout != "" {
		t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, stdout)
	}
	if want := "bad.toml:6: rule[0].commands:"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	_, stderr, code = runApp(t, "policy", "check", "--policy", filepath.Join(dir, "none.toml"), "-C", dir, "--tool", "shell", "--", "ls")
	if code != exit.Usage || !strings.Contains(stderr, "none.toml") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
	_, _, code = runApp(t, "policy", "check", "-C", filepath.Join(dir, "nowhere"), "--tool", "shell", "--", "ls")
	if code != exit.Usage {
		t.Errorf("missing workspace: exit %d, want 2", code)
	}
	_, _, code = runApp(t, "policy")
	if code != exit.Usage {
		t.Errorf("bare policy: exit %d, want 2", code)
	}
}

// TestLoadPolicyTrust checks that a workspace policy is loaded in line mode
// or with --trust-workspace, and otherwise ignored with a note.
func TestLoadPolicyTrust(t *testing.T) {
	ws := policyWorkspace(t)
	if err := os.MkdirAll(filepath.Join(ws, ".rubichan"), 0o755); err != nil {
		t.Fatal(err)
	}
	wsPolicy := "[[rule]]\nid = \"ws-allow\"\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"make\"]\n"
	if err := os.WriteFile(filepath.Join(ws, ".rubichan", "policy.toml"), []byte(wsPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		src      harness.PolicySource
		decision string
		note     bool
	}{
		{"headless untrusted", harness.PolicySource{Dir: ws, Headless: true}, "ask", true},
		{"headless trusted", harness.PolicySource{Dir: ws, Headless: true, TrustWorkspace: true}, "allow", false},
		{"line mode", harness.PolicySource{Dir: ws}, "allow", false},
		{"explicit file wins", harness.PolicySource{Dir: ws, Headless: true, TrustWorkspace: true, File: "../testdata/policy/strict.toml"}, "deny", false},
		{"cli deny over workspace allow", harness.PolicySource{Dir: ws, Deny: []string{"shell:make *"}}, "deny", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var notes bytes.Buffer
			p, err := harness.LoadPolicy(tc.src, &notes)
			if err != nil {
				t.Fatal(err)
			}
			r := p.Decide(policyShell("make"))
			if r.Decision.String() != tc.decision {
				t.Errorf("make: %s by %s, want %s", r.Decision, r.Rule, tc.decision)
			}
			if got := strings.Contains(notes.String(), "ignoring .rubichan/policy.toml"); got != tc.note {
				t.Errorf("note = %v, want %v: %q", got, tc.note, notes.String())
			}
		})
	}
	// policy check answers as headless exec does
	stdout, stderr, code := runApp(t, "policy", "check", "-C", ws, "--tool", "shell", "--", "make")
	if code != 0 || !strings.Contains(stdout, "decision: ask") || !strings.Contains(stderr, "--trust-workspace") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

func TestLoadPolicyWarnings(t *testing.T) {
	t.Parallel()
	var notes bytes.Buffer
	if _, err := harness.LoadPolicy(harness.PolicySource{Dir: t.TempDir(), Allow: []string{"shell:rm x"}, Deny: []string{"shell:rm *"}}, &notes); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notes.String(), `rubichan: policy: warning: rule --allow shell:rm x: allow "rm x" can never take effect`) {
		t.Errorf("notes: %q", notes.String())
	}
}

func policyShell(cmd string) policy.Action {
	return policy.Action{Class: policy.ClassShell, Command: cmd}
}

// TestPolicyCheckEnv checks that policy check reads the policy flags from
// their RUBICHAN_* variables, as exec does.
func TestPolicyCheckEnv(t *testing.T) {
	ws := policyWorkspace(t)
	strict, err := filepath.Abs("../testdata/policy/strict.toml")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("RUBICHAN_POLICY", strict)
	t.Setenv("RUBICHAN_CWD", ws)
	stdout, stderr, code := runApp(t, "policy", "check", "--json", "--tool", "read", "--", "src/key")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got checkJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Decision != "deny" || got.Rule != "secrets" {
		t.Errorf("got %s by %q, want deny by secrets (the policy and workspace from the environment)", got.Decision, got.Rule)
	}
}
