package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectSkillFileLeavingFolder: a workspace skill's SKILL.md that is
// a link out of its folder is the checkout pointing at a file of the
// user's; it is a problem at discovery, and when the link appears later
// (the model may write the workspace) reading the skill for /skill
// refuses it, so no file outside reaches the prompt through a skill.
func TestProjectSkillFileLeavingFolder(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "notes.md")
	if err := os.WriteFile(secret, []byte("---\nname: lured\ndescription: x\n---\nthe user's own notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"lured", "swapped"} {
		if err := os.MkdirAll(filepath.Join(ws, ".agents", "skills", n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(ws, ".agents", "skills", "lured", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	swapped := filepath.Join(ws, ".agents", "skills", "swapped", "SKILL.md")
	if err := os.WriteFile(swapped, []byte("---\nname: swapped\ndescription: x\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := Discover(Roots{Workspace: ws, TrustWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(set.Offered); len(got) != 1 || got[0] != "swapped@project" {
		t.Fatalf("offered %q, want only swapped", got)
	}
	s := set.Offered[0]
	if data, err := s.Read(); err != nil || !strings.Contains(string(data), "body") {
		t.Fatalf("Read = %q, %v", data, err)
	}
	if err := os.Remove(swapped); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, swapped); err != nil {
		t.Fatal(err)
	}
	if data, err := s.Read(); err == nil || strings.Contains(string(data), "own notes") {
		t.Errorf("Read after the swap = %q, %v; want an error", data, err)
	}
	// A user's skill may be a link (a dotfiles manager makes them).
	set, err = Discover(Roots{Workspace: t.TempDir(), Dirs: []string{filepath.Join(ws, ".agents", "skills", "lured")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Offered) != 1 {
		t.Errorf("--skills: offered %q, want lured (a link is the user's choice there)", names(set.Offered))
	}
}
