package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWithSelfOnPath(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ env, want []string }{
		"path":      {[]string{"HOME=/h", "PATH=/usr/bin:/bin"}, []string{"HOME=/h", "PATH=/x:/usr/bin:/bin", "RUBICHAN=/x/rubichan"}},
		"no path":   {[]string{"HOME=/h"}, []string{"HOME=/h", "PATH=/x", "RUBICHAN=/x/rubichan"}},
		"empty":     {[]string{"PATH="}, []string{"PATH=/x", "RUBICHAN=/x/rubichan"}},
		"inherited": {[]string{"RUBICHAN=/ws/evil", "PATH=/bin"}, []string{"PATH=/x:/bin", "RUBICHAN=/x/rubichan"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := withSelfOnPath(c.env, "/x"); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestSelfLinkDir(t *testing.T) {
	t.Parallel()
	dir, err := selfLinkDir("/usr/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "rubichan" {
		t.Errorf("the directory holds %v", entries)
	}
	if target, err := os.Readlink(filepath.Join(dir, "rubichan")); err != nil || target != "/usr/bin/true" {
		t.Errorf("link %q: %v", target, err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("the directory is writable by others: %v", fi.Mode())
	}
}
