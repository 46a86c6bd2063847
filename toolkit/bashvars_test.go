package toolkit

import (
	"context"
	"maps"
	"os"
	"strings"
	"testing"
)

// TestBashVars checks that Vars reports the values of HOME, PWD, TMPDIR
// and USER a command actually starts with (the run's TMPDIR over the
// inherited one), and leaves out a variable the environment lacks, so
// the policy judges an expansion of it as opaque.
func TestBashVars(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*BashConfig)
		want func(dir string) map[string]string
	}{
		{
			name: "with the run's TMPDIR",
			edit: func(c *BashConfig) {
				c.Env = append(c.Env, "USER=ci", "TMPDIR=/inherited")
				c.TempDir = os.TempDir()
			},
			want: func(dir string) map[string]string {
				return map[string]string{"HOME": dir, "PWD": dir, "TMPDIR": os.TempDir(), "USER": "ci"}
			},
		},
		{
			name: "inherited TMPDIR, no USER",
			edit: func(c *BashConfig) { c.Env = append(c.Env, "TMPDIR=/inherited") },
			want: func(dir string) map[string]string {
				return map[string]string{"HOME": dir, "PWD": dir, "TMPDIR": "/inherited"}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, dir := newTestBash(t, tc.edit)
			want := tc.want(dir)
			if got := b.Vars(); !maps.Equal(got, want) {
				t.Errorf("Vars() = %v, want %v", got, want)
			}
			res := callBash(t, context.Background(), b, `for v in HOME PWD TMPDIR USER; do printf '%s=%s\n' "$v" "$(printenv "$v")"; done`, 0)
			got := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(res.Content), "\n") {
				if k, v, _ := strings.Cut(l, "="); v != "" {
					got[k] = v
				}
			}
			if !maps.Equal(got, want) {
				t.Errorf("the command saw %v (%q), Vars says %v", got, res.Content, want)
			}
			// The map is the caller's.
			b.Vars()["HOME"] = "x"
			if b.Vars()["HOME"] != want["HOME"] {
				t.Error("Vars shares its map")
			}
		})
	}
}
