package toolkit

import (
	"context"
	"path/filepath"
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

// TestWalkHonoursRepositoryAboveRoot opens a workspace that is a
// subdirectory of a checkout: the ignore files of the directories above it
// and the repository's info/exclude apply, as they do for git.
func TestWalkHonoursRepositoryAboveRoot(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	mkTree(t, repo, map[string]string{
		".git/info/exclude":  "*.tmp\n",
		".gitignore":         "*.log\n/mid/ws/build/\n/ws/\n!keep.log\n",
		"mid/.gitignore":     "gen/\nws/vendor.go\n",
		"mid/ws/a.go":        "package a // alpha",
		"mid/ws/debug.log":   "alpha",
		"mid/ws/keep.log":    "alpha",
		"mid/ws/build/b.go":  "package b // alpha",
		"mid/ws/gen/g.go":    "package g // alpha",
		"mid/ws/vendor.go":   "package v // alpha",
		"mid/ws/sub/x.tmp":   "alpha",
		"mid/ws/sub/ws/c.go": "package c // alpha", // "/ws/" is anchored at the top
		"mid/other.go":       "package o // alpha", // outside the workspace
	})
	ws, err := OpenWorkspace(filepath.Join(repo, "mid", "ws"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	want := "a.go\nkeep.log\nsub/ws/c.go\n[3 files]\n"
	if res := call(t, NewGlob(ws, nil), obj{"pattern": "**"}); res.Content != want {
		t.Errorf("glob = %q, want %q", res.Content, want)
	}
	want = "a.go:1:package a // alpha\nkeep.log:1:alpha\nsub/ws/c.go:1:package c // alpha\n[3 matches in 3 files]\n"
	if res := call(t, NewGrep(ws, nil), obj{"pattern": "alpha"}); res.Content != want {
		t.Errorf("grep = %q, want %q", res.Content, want)
	}
	// Walking from a subdirectory applies the same rules.
	if res := call(t, NewGlob(ws, nil), obj{"pattern": "**", "path": "sub"}); res.Content != "sub/ws/c.go\n[1 file]\n" {
		t.Errorf("glob in sub = %q", res.Content)
	}
}

// TestWalkHonoursWorktreeExclude: in a linked worktree .git is a file, and
// info/exclude lives in the main repository's git directory.
func TestWalkHonoursWorktreeExclude(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkTree(t, dir, map[string]string{
		"main/.git/info/exclude":           "*.tmp\n",
		"main/.git/worktrees/wt/HEAD":      "ref: refs/heads/wt\n",
		"main/.git/worktrees/wt/commondir": "../..\n",
		"wt/.git":                          "gitdir: ../main/.git/worktrees/wt\n",
		"wt/a.go":                          "package a",
		"wt/b.tmp":                         "x",
		"wt/sub/c.tmp":                     "x",
	})
	for _, root := range []string{"wt", "wt/sub"} {
		ws, err := OpenWorkspace(filepath.Join(dir, root))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		res := call(t, NewGlob(ws, nil), obj{"pattern": "**/*.tmp"})
		if !res.IsError {
			t.Errorf("workspace %s: excluded files listed: %q", root, res.Content)
		}
	}
}
