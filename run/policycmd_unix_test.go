//go:build unix

package run

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPolicyCheckNonRegular checks that a FIFO is refused as the file tools
// refuse it, even where the rules would allow the path.
func TestPolicyCheckNonRegular(t *testing.T) {
	ws := policyWorkspace(t)
	if err := syscall.Mkfifo(filepath.Join(ws, "src", "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for tool, arg := range map[string]string{"read": "src/pipe", "write": "src/pipe", "shell": "git status > src/pipe"} {
		stdout, stderr, code := runApp(t, "policy", "check", "--policy", "../testdata/policy/strict.toml", "-C", ws,
			"--json", "--tool", tool, "--", arg)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var got checkJSON
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if got.Decision != "deny" || got.Rule != "guard" || !strings.Contains(got.Reason, "not a regular file or directory") {
			t.Errorf("%s: got %s by %s (%s), want a guard denial", tool, got.Decision, got.Rule, got.Reason)
		}
	}
}
