package harness

import (
	"path/filepath"
	"testing"
)

// TestWritableOver checks the refusal of a --patch copy whose private git
// directory a writable root of the sandbox holds (issue 30, item 1).
func TestWritableOver(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	gitDir := filepath.Join(tmp, "rubichan-patch-1", "base.git")
	root := filepath.Join(tmp, "rubichan-patch-1", "w")
	for _, tc := range []struct {
		writable []string
		cache    string
		want     string
	}{
		{nil, "", ""},
		{[]string{"build", "/elsewhere"}, filepath.Join(tmp, "cache"), ""},
		{[]string{tmp}, "", tmp},
		{[]string{".."}, "", filepath.Join(root, "..")},
		{nil, filepath.Join(tmp, "rubichan-patch-1"), filepath.Join(tmp, "rubichan-patch-1")},
		{[]string{gitDir}, "", gitDir},
		{[]string{filepath.Join(tmp, "rubichan-patch-10")}, "", ""}, // a sibling with a longer name
	} {
		if got := writableOver(gitDir, root, tc.writable, tc.cache); got != tc.want {
			t.Errorf("writableOver(%q, cache %q) = %q, want %q", tc.writable, tc.cache, got, tc.want)
		}
	}
}
