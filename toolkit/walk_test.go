package toolkit

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestWalkHostileIgnoreFiles: a checkout may hold a FIFO or a symlink
// named .gitignore; the walk must neither block on the FIFO nor follow the
// link, and .git/info/exclude applies.
func TestWalkHostileIgnoreFiles(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{
		".gitignore":        fifoMark,
		"sub/.gitignore":    "->../rules",
		"rules":             "*.txt\n",
		"sub/a.txt":         "x",
		"b.tmp":             "x",
		".git/info/exclude": "*.tmp\n",
	})
	done := make(chan Result, 1)
	go func() {
		res, _ := NewGlob(ws, nil).Run(context.Background(), []byte(`{"pattern":"**"}`))
		done <- res
	}()
	select {
	case res := <-done:
		if want := "rules\nsub/a.txt\n[2 files]\n"; res.Content != want {
			t.Errorf("glob = %q, want %q", res.Content, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("walk blocked on a FIFO named .gitignore")
	}
}

func TestGrepOutputCap(t *testing.T) {
	t.Parallel()
	line := "needle " + strings.Repeat("w", 400) + "\n"
	ws := newWS(t, map[string]string{"wide.txt": strings.Repeat(line, 300)})
	res := call(t, NewGrep(ws, nil), obj{"pattern": "needle"})
	if len(res.Content) > grepMaxBytes+300 {
		t.Errorf("content %d bytes, cap %d", len(res.Content), grepMaxBytes)
	}
	if !res.Meta.Truncated || !strings.Contains(res.Content, "[output capped at 50 KB after ") {
		t.Errorf("cap not reported: %q", res.Content[len(res.Content)-200:])
	}
}
