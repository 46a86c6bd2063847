package config

import (
	"strings"
	"testing"
	"time"
)

// TestLoadConfigHooks checks [[hooks.*]]: entries add up across files in
// order (user, then a trusted workspace), defaults apply, and an untrusted
// workspace cannot add any.
func TestLoadConfigHooks(t *testing.T) {
	t.Parallel()
	user := "[[hooks.before_tool]]\ncommand = \"audit\"\n[[hooks.stop]]\nname = \"lint\"\ncommand = \"make lint\"\ntimeout = \"5m\"\n"
	ws := "[[hooks.before_tool]]\ncommand = \"./guard.sh gen\"\nmatch = [\"write\", \"edit\", \"mcp__github__*\"]\n"
	f := newConfigFixture(t, user, "", ws)
	lc, err := Load(f.options())
	if err != nil {
		t.Fatal(err)
	}
	if got := lc.Hooks.BeforeTool; len(got) != 1 || got[0].Command != "audit" || got[0].Timeout != HookDefaultTimeout || len(got[0].Match) != 0 {
		t.Errorf("untrusted: before_tool = %+v, want the user's audit hook alone, with the default timeout", got)
	}
	if got := lc.Hooks.Stop; len(got) != 1 || got[0].Label() != "lint" || got[0].Timeout != 5*time.Minute {
		t.Errorf("stop = %+v, want lint with 5m", got)
	}
	if len(lc.Notes) != 1 || !strings.Contains(lc.Notes[0], "[hooks]") {
		t.Errorf("notes = %q, want one naming [hooks]", lc.Notes)
	}
	opts := f.options()
	opts.TrustWorkspace = true
	lc, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	got := lc.Hooks.BeforeTool
	if len(got) != 2 || got[0].Command != "audit" || got[1].Label() != "./guard.sh" {
		t.Fatalf("trusted: before_tool = %+v, want the user's hook, then the workspace's", got)
	}
	for tool, want := range map[string]bool{"write": true, "edit": true, "mcp__github__issue": true, "bash": false, "mcp__gitlab__x": false} {
		if got[1].Matches(tool) != want {
			t.Errorf("match %q = %v, want %v", tool, !want, want)
		}
	}
	if !got[0].Matches("anything") {
		t.Error("a hook without match must match every tool")
	}
}

// TestParseConfigHookErrors checks that a bad hook entry is an error
// naming the key and the problem.
func TestParseConfigHookErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ toml, want string }{
		{"[[hooks.before_tool]]\nmatch = [\"write\"]\n", "missing: a hook needs a command"},
		{"[[hooks.before_tool]]\ncommand = \"\"\n", "command: want a non-empty string"},
		{"[[hooks.after_tool]]\ncommand = \"x\"\ntimeout = \"0s\"\n", "timeout: must be above zero"},
		{"[[hooks.after_tool]]\ncommand = \"x\"\ntimeout = \"soon\"\n", "timeout: want a duration"},
		{"[[hooks.stop]]\ncommand = \"x\"\nmatch = \"write\"\n", "match: want an array"},
		{"[[hooks.stop]]\ncommand = \"x\"\nmatch = [\"[\"]\n", `"[" is not a valid glob`},
		{"[[hooks.stop]]\ncommand = \"x\"\nmatcher = \"Bash\"\n", "matcher: unknown key"},
		{"[hooks]\nbefore_tool = \"x\"\n", "want an array of tables"},
		{"[[hooks.on_start]]\ncommand = \"x\"\n", "hooks.on_start: unknown key"},
	} {
		_, err := Parse(strings.NewReader(c.toml), "c.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "hooks") {
			t.Errorf("%q: error %v, want one with %q", c.toml, err, c.want)
		}
	}
}
