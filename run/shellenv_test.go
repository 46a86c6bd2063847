package run

import (
	"github.com/rubichan/rubichan/run/harness"
	"maps"
	"testing"
)

// TestShellEnv checks what the policy learns of a command's variables:
// the bash tool's HOME, TMPDIR and USER and the directory it runs in as
// PWD, each left out (its expansion opaque) when the shell would split or
// glob it, or when it is empty or unknown.
func TestShellEnv(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"HOME": "/home/ci", "TMPDIR": "/tmp/rubichan-run-1", "USER": "ci", "PWD": "/elsewhere", "OTHER": "x"}
	for _, tc := range []struct {
		name       string
		root, dir  string
		vars, want map[string]string
	}{
		{"the bash tool's values", "/ws", "", vars,
			map[string]string{"HOME": "/home/ci", "TMPDIR": "/tmp/rubichan-run-1", "USER": "ci", "PWD": "/ws"}},
		{"a subdirectory", "/ws", "src", vars,
			map[string]string{"HOME": "/home/ci", "TMPDIR": "/tmp/rubichan-run-1", "USER": "ci", "PWD": "/ws/src"}},
		{"no bash tool", "/ws", "", nil, map[string]string{"PWD": "/ws"}},
		{"values the shell would split or glob", "/my ws", "", map[string]string{"HOME": "/home/a b", "TMPDIR": "/tmp/*", "USER": ""},
			map[string]string{}},
	} {
		if got := harness.ShellEnv(tc.root, tc.dir, tc.vars); !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
