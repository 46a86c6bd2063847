package run

import (
	"testing"
)

func TestPatchLine(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		pi   PatchInfo
		want string
	}{
		"files":   {PatchInfo{Path: "/tmp/fix.patch", Files: 3}, "patch written to /tmp/fix.patch · 3 files"},
		"one":     {PatchInfo{Path: "-", Files: 1}, "patch written to stdout · 1 file"},
		"partial": {PatchInfo{Path: "p", Files: 2, Partial: true}, "patch written to p · 2 files · partial: the run did not finish"},
		"empty":   {PatchInfo{Path: "-"}, "no changes: the patch on stdout is empty"},
	} {
		if got := patchLine(&c.pi); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
