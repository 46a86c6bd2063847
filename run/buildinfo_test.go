package run

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/session"
)

func TestParseBuildInfo(t *testing.T) {
	t.Parallel()
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"}, {Key: "vcs.modified", Value: "true"}}
	tests := map[string]struct {
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		"no build info":   {"dev", nil, "dev"},
		"git, modified":   {"dev", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20261123203219-1a2b3c4d5e6f+dirty"}, Settings: vcs}, "dev (commit 1a2b3c4d5e6f, modified; go1.26.0)"},
		"devel, clean":    {"dev", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: vcs[:2]}, "dev (commit 1a2b3c4d5e6f; go1.26.0)"},
		"module tag":      {"dev", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3 (go1.26.0)"},
		"ldflags version": {"v2.0.0", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: vcs}, "v2.0.0 (commit 1a2b3c4d5e6f, modified; go1.26.0)"},
	}
	for name, tc := range tests {
		if got := parseBuildInfo(tc.linked, tc.bi).String(); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}

// TestVersionCarriesCommit commits the module's files, as they are now,
// into a new git repository, builds the real program there as a user would
// in a clone, and checks that `rubichan version` names that commit. (A new
// repository, because the go command stamps no VCS information in a `git
// worktree`, whose .git is a file, and a clone would miss uncommitted work.)
func TestVersionCarriesCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program")
	}
	files, err := exec.Command("git", "-C", "..", "ls-files", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	src := t.TempDir()
	for _, f := range strings.Fields(string(files)) {
		data, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			continue // deleted in the work tree
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = src
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "snapshot")
	head := git("rev-parse", "HEAD")
	bin := filepath.Join(t.TempDir(), "rubichan")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^rubichan version \S+ \(commit ([0-9a-f]{12})(, modified)?; go1\.\d+\S*\)\n$`)
	m := re.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("version output %q does not match %s", out, re)
	}
	if m[2] != "" {
		t.Errorf("a build of a clean commit says modified: %q", out)
	}
	if !strings.HasPrefix(head, m[1]) {
		t.Errorf("version names commit %s, HEAD is %s", m[1], head)
	}
}

// TestVersionJSON checks the shape of `rubichan version --json` and that
// it carries the format versions the packages define.
func TestVersionJSON(t *testing.T) {
	code, out, errOut := runCLI(t, fakeEnv(nil), "", "version", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	keys := slices.Sorted(maps.Keys(v))
	if want := []string{"commit", "go", "modified", "schemas", "version"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	schemas, _ := v["schemas"].(map[string]any)
	if schemas["events"] != float64(events.SchemaVersion) || schemas["session"] != float64(session.Format) || len(schemas) != 2 {
		t.Errorf("schemas %v, want events %d and session %d", schemas, events.SchemaVersion, session.Format)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("not one line: %q", out)
	}
}
