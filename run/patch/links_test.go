//go:build unix

package patch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHardLinkGuardKept checks that a file of the workspace with more than
// one link (here another name of .env) is copied with more than one link,
// in a git checkout (untracked, and tracked but modified) and outside git,
// and that its second name is outside the copy's work tree (issue 30,
// item 12).
func TestHardLinkGuardKept(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"git untracked", "git modified", "plain"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var dir string
			var env []string
			switch mode {
			case "plain":
				env = testEnv(t)
				dir = filepath.Join(t.TempDir(), "plain")
				writeFiles(t, dir, map[string]string{"a.txt": "a\n"})
			default:
				dir, env = newRepo(t)
				writeFiles(t, dir, map[string]string{".gitignore": ".env\n"})
			}
			writeFiles(t, dir, map[string]string{".env": "TOPSECRET=1\n"})
			name := "notes.txt"
			if mode == "git modified" {
				name = "a.txt" // tracked: replaced by a link to .env
				os.Remove(filepath.Join(dir, name))
			}
			if err := os.Link(filepath.Join(dir, ".env"), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			c, err := Prepare(context.Background(), dir, Options{Env: env, TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fi, err := os.Stat(filepath.Join(c.Root, name))
			if err != nil {
				t.Fatal(err)
			}
			if n := fi.Sys().(*syscall.Stat_t).Nlink; n < 2 {
				t.Errorf("the copy of %s has %d link(s), want at least 2", name, n)
			}
			if a, err := os.Stat(filepath.Join(c.Root, "a.txt")); mode != "git modified" && err == nil && a.Sys().(*syscall.Stat_t).Nlink != 1 {
				t.Errorf("a.txt, a file of one link, has %d links in the copy", a.Sys().(*syscall.Stat_t).Nlink)
			}
			links := filepath.Join(c.tmp, "links")
			if rel, err := filepath.Rel(c.Root, links); err != nil || !strings.HasPrefix(rel, "..") {
				t.Errorf("the second names are in %s, inside the copy %s", links, c.Root)
			}
		})
	}
}
