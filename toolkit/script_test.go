//go:build unix

package toolkit

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestScriptRunner checks the hook command runner: stdin, separate stdout
// and stderr, exit codes, timeouts, big unread input, leftovers killed and
// the Set variables over the scrubbed environment.
func TestScriptRunner(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewScriptRunner(ScriptConfig{
		Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "MY_API_KEY=secret", "HOME=/h"},
		Set: []string{"RUBICHAN_SESSION_ID=s1", "HOME=/set"}, GracePeriod: 200 * time.Millisecond,
	})
	big := bytes.Repeat([]byte("x"), 1<<20)
	for _, c := range []struct {
		name, cmd string
		stdin     []byte
		timeout   time.Duration
		out, err  string
		code      int
		timedOut  bool
	}{
		{"stdin to stdout", "cat", []byte(`{"a":1}`), time.Minute, `{"a":1}`, "", 0, false},
		{"stderr apart, exit 2", "echo no >&2; exit 2", nil, time.Minute, "", "no\n", 2, false},
		{"env scrubbed and set", `echo "$MY_API_KEY|$RUBICHAN_SESSION_ID|$HOME"`, nil, time.Minute, "|s1|/set\n", "", 0, false},
		{"big stdin unread", "exit 0", big, time.Minute, "", "", 0, false},
		{"big stdin read", "wc -c | tr -d ' '", big, time.Minute, "1048576\n", "", 0, false},
		{"timeout", "sleep 10", nil, 100 * time.Millisecond, "", "", -1, true},
		{"leftover does not hold the call", "sleep 100 & echo started", nil, time.Minute, "started\n", "", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res, err := r.Run(t.Context(), c.cmd, c.stdin, c.timeout)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stdout != c.out || res.Stderr != c.err || res.ExitCode != c.code || res.TimedOut != c.timedOut {
				t.Errorf("got %q %q %d %v, want %q %q %d %v", res.Stdout, res.Stderr, res.ExitCode, res.TimedOut, c.out, c.err, c.code, c.timedOut)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	if _, err := NewScriptRunner(ScriptConfig{Dir: dir + "/missing"}).Run(t.Context(), "true", nil, time.Second); err == nil || !strings.Contains(err.Error(), "script: start") {
		t.Errorf("missing dir: %v, want a start error", err)
	}
}
