package run

import (
	"github.com/rubichan/rubichan/run/harness"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestListFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, f := range []string{"src/a.go", "src/sub/b.go", "build/.git/config"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	resolve := func(p string) (string, error) { return p, nil }
	list := harness.ListFiles(root, resolve)
	got, ok := list("src")
	slices.Sort(got)
	if !ok || !slices.Equal(got, []string{"src/a.go", "src/sub", "src/sub/b.go"}) {
		t.Errorf("src: %v %v", got, ok)
	}
	if got, ok := list("build"); !ok || !slices.Contains(got, "build/.git/config") {
		t.Errorf("build: %v %v", got, ok)
	}
	if got, ok := list("missing"); !ok || len(got) != 0 {
		t.Errorf("missing: %v %v, want nothing, complete", got, ok)
	}
	if runtime.GOOS == "windows" {
		return
	}
	// a link is listed with its target; one that cannot be resolved, or a
	// file with a second hard link, makes the listing incomplete
	if err := os.Symlink("../.env", filepath.Join(root, "src", "env")); err != nil {
		t.Fatal(err)
	}
	withTarget := harness.ListFiles(root, func(p string) (string, error) {
		if p == "src/env" {
			return ".env", nil
		}
		return p, nil
	})
	if got, ok := withTarget("src"); !ok || !slices.Contains(got, ".env") {
		t.Errorf("src with a link: %v %v, want the link's target listed", got, ok)
	}
	if err := os.Link(filepath.Join(root, "src", "a.go"), filepath.Join(root, "src", "hard")); err != nil {
		t.Fatal(err)
	}
	if got, ok := list("src"); ok {
		t.Errorf("src with a hard link: %v, want incomplete", got)
	}
}
