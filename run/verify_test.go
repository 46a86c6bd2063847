package run

import (
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/harness"
	"testing"
)

func TestPatchLine(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		pi   agent.PatchInfo
		want string
	}{
		"files":   {agent.PatchInfo{Path: "/tmp/fix.patch", Files: 3}, "patch written to /tmp/fix.patch · 3 files"},
		"one":     {agent.PatchInfo{Path: "-", Files: 1}, "patch written to stdout · 1 file"},
		"partial": {agent.PatchInfo{Path: "p", Files: 2, Partial: true}, "patch written to p · 2 files · partial: the run did not finish"},
		"empty":   {agent.PatchInfo{Path: "-"}, "no changes: the patch on stdout is empty"},
	} {
		if got := harness.PatchLine(&c.pi); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
