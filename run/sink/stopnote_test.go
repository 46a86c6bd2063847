package sink

import "testing"

func TestStopNote(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ out, want string }{
		"timeout": {"partial output\n[timed out after 1s; the process group got SIGTERM]\n[signal: terminated]", "timed out after 1s"},
		"signal":  {"x\n[signal: killed]", "signal: killed"},
		"cancel":  {"[cancelled (interrupted by SIGTERM); the process group got SIGTERM]\n[signal: terminated]", "signal: terminated"},
	} {
		if got := stopNote(c.out); got != c.want {
			t.Errorf("%s: stopNote = %q, want %q", name, got, c.want)
		}
	}
}
