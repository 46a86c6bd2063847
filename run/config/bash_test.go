package config

import (
	"slices"
	"strings"
	"testing"
)

// TestLoadConfigBashPathAdd checks [bash] path_add: the user's file sets
// it, an untrusted workspace file cannot (it would put the checkout's
// programs on the bash tool's PATH), and a bad value is an error.
func TestLoadConfigBashPathAdd(t *testing.T) {
	t.Parallel()
	user := "[bash]\npath_add = [\"tools/bin\", \"/opt/x/bin\"]\n"
	ws := "[bash]\npath_add = [\"evil\"]\n"
	f := newConfigFixture(t, user, "", ws)
	lc, err := Load(f.options())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"tools/bin", "/opt/x/bin"}; !slices.Equal(lc.Bash.PathAdd, want) {
		t.Errorf("path_add = %q, want the user's %q", lc.Bash.PathAdd, want)
	}
	if len(lc.Notes) != 1 || !strings.Contains(lc.Notes[0], "[bash]") {
		t.Errorf("notes = %q, want one naming [bash]", lc.Notes)
	}
	opts := f.options()
	opts.TrustWorkspace = true
	if lc, err = Load(opts); err != nil || !slices.Equal(lc.Bash.PathAdd, []string{"evil"}) {
		t.Errorf("trusted: path_add = %q, %v; want the workspace's", lc.Bash.PathAdd, err)
	}
	for _, bad := range []string{`path_add = "bin"`, `path_add = ["a:b"]`, `path_add = [""]`, `path_add = [1]`} {
		f := newConfigFixture(t, "[bash]\n"+bad+"\n", "", "")
		if _, err := Load(f.options()); err == nil || !strings.Contains(err.Error(), "bash.path_add") {
			t.Errorf("%s: error %v, want one naming bash.path_add", bad, err)
		}
	}
}
