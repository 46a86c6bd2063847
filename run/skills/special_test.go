//go:build unix

package skills

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialSkillFile: a SKILL.md that is not a regular file — a FIFO,
// a link to /dev/zero or /dev/stdin (the build log the run was given) —
// is a problem, found without reading it: discovery reads an untrusted
// workspace's skills too (to list them; there a link out of the folder is
// a problem before this one), and must neither hang, nor eat the run's
// standard input, nor fill memory. ReadFile, which `skills show` uses,
// refuses it the same way. The skills here are a --skills folder's, whose
// links are followed.
func TestSpecialSkillFile(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"fifo": fifo, "zero": "/dev/zero", "null": "/dev/null"} {
		dir := filepath.Join(top, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, "SKILL.md")); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan Set, 1)
	go func() {
		set, _ := Discover(Roots{Dirs: []string{top}})
		done <- set
	}()
	select {
	case set := <-done:
		if len(set.All) != 3 {
			t.Fatalf("found %d skills, want 3", len(set.All))
		}
		for _, s := range set.All {
			if p := strings.Join(s.ProblemTexts(), "; "); !strings.Contains(p, "not a regular file") {
				t.Errorf("%s: problems %q, want one saying it is not a regular file", s.Dir, p)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("discovery hangs on a SKILL.md that is a FIFO")
	}
	for _, f := range []string{fifo, "/dev/zero"} {
		if _, err := ReadFile(f); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadFile(%s) = %v, want an error saying it is not a regular file", f, err)
		}
	}
}
