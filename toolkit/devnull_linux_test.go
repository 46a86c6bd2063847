package toolkit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// devNulls counts this process's descriptors open on /dev/null.
func devNulls(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); target == os.DevNull {
			n++
		}
	}
	return n
}

// TestBashKeepsOneDevNull: the tool opens /dev/null, its commands'
// standard input, once and keeps it until Close — not once a command —
// with the sandbox off and through the spawner. Not parallel: it counts
// the process's descriptors.
func TestBashKeepsOneDevNull(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		before := devNulls(t)
		b, _ := newTestBash(t, func(c *BashConfig) {
			c.Sandbox = BashSandbox{Enabled: sandboxed, ABI: sandbox.ProbeABI()}
			c.TempDir = t.TempDir()
		})
		for range 3 {
			if res := callBash(t, t.Context(), b, "readlink /proc/self/fd/0", 0); res.Content != "/dev/null\n" {
				t.Fatalf("sandboxed %v: stdin %q, want /dev/null", sandboxed, res.Content)
			}
		}
		if n := devNulls(t) - before; n != 1 {
			t.Errorf("sandboxed %v: %d more descriptors on /dev/null after three commands, want the tool's one", sandboxed, n)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if n := devNulls(t) - before; n != 0 {
			t.Errorf("sandboxed %v: %d more descriptors on /dev/null after Close, want none", sandboxed, n)
		}
	}
}
