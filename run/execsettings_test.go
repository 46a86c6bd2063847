package run

import (
	"reflect"
	"slices"
	"testing"

	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/structured"
)

// TestExecConfigSettingsCarriesEveryField checks that execConfig.settings
// carries every harness setting of execConfig (issue 31, section 2 K10 of
// the plan) to one field of harness.Settings, and that every field of
// execConfig is either carried or named as not the harness's.
func TestExecConfigSettingsCarriesEveryField(t *testing.T) {
	t.Parallel()
	lc := &config.Loaded{Config: config.Config{CompactAt: 0.5, Limits: config.Limits{MaxTurns: 3}}}
	rp := config.ResolvedProvider{Name: "p", Model: "m", BaseURL: "http://127.0.0.1:1", KeyEnv: "P_KEY"}.WithAPIKey("sk-k")
	tape := &cassette.Cassette{}
	schema := &structured.Schema{Raw: []byte(`{}`)}
	rows := []struct {
		field string
		set   func(*execConfig)
		got   func(harness.Settings) any
		want  any
	}{
		{"Resolved", func(c *execConfig) { c.Resolved = rp }, func(s harness.Settings) any { return s.Provider }, rp},
		{"Settings", func(c *execConfig) { c.Settings = lc }, func(s harness.Settings) any { return s.Config }, lc},
		{"PolicyFile", func(c *execConfig) { c.PolicyFile = "/p.toml" }, func(s harness.Settings) any { return s.Policy.File }, "/p.toml"},
		{"Allow", func(c *execConfig) { c.Allow = []string{"read:a"} }, func(s harness.Settings) any { return s.Policy.Allow }, []string{"read:a"}},
		{"Deny", func(c *execConfig) { c.Deny = []string{"bash:b"} }, func(s harness.Settings) any { return s.Policy.Deny }, []string{"bash:b"}},
		{"TrustWorkspace", func(c *execConfig) { c.TrustWorkspace = true }, func(s harness.Settings) any { return s.Policy.TrustWorkspace }, true},
		{"OnAsk", func(c *execConfig) { c.OnAsk = "defer" }, func(s harness.Settings) any { return s.OnAsk }, "defer"},
		{"Dir", func(c *execConfig) { c.Dir = "/ws" }, func(s harness.Settings) any { return s.Dir }, "/ws"},
		{"NoStdin", func(c *execConfig) { c.NoStdin = true }, func(s harness.Settings) any { return s.Input.NoStdin }, true},
		{"PromptFile", func(c *execConfig) { c.PromptFile = "p.txt" }, func(s harness.Settings) any { return s.Input.PromptFile }, "p.txt"},
		{"PromptArgs", func(c *execConfig) { c.PromptArgs = []string{"go"} }, func(s harness.Settings) any { return s.Input.Args }, []string{"go"}},
		{"SystemPrompt", func(c *execConfig) { c.SystemPrompt = "sys" }, func(s harness.Settings) any { return s.System.Replace }, "sys"},
		{"AppendSystem", func(c *execConfig) { c.AppendSystem = "more" }, func(s harness.Settings) any { return s.System.Append }, "more"},
		{"NoContextFiles", func(c *execConfig) { c.NoContextFiles = true }, func(s harness.Settings) any { return s.System.NoContextFiles }, true},
		{"PassEnv", func(c *execConfig) { c.PassEnv = []string{"KEEP"} }, func(s harness.Settings) any { return s.PassEnv }, []string{"KEEP"}},
		{"MCP", func(c *execConfig) { c.MCP.ConfigFile = "/m.json" }, func(s harness.Settings) any { return s.MCP.ConfigFile }, "/m.json"},
		{"MCP", func(c *execConfig) { c.MCP.Off = true }, func(s harness.Settings) any { return s.MCP.Off }, true},
		{"Skills", func(c *execConfig) { c.Skills.Dirs = []string{"/s"} }, func(s harness.Settings) any { return s.Skills.Dirs }, []string{"/s"}},
		{"Skills", func(c *execConfig) { c.Skills.Off = true }, func(s harness.Settings) any { return s.Skills.Off }, true},
		{"NoSubqueries", func(c *execConfig) { c.NoSubqueries = true }, func(s harness.Settings) any { return s.Subqueries.Off }, true},
		{"Subqueries", func(c *execConfig) { c.Subqueries = true }, func(s harness.Settings) any { return s.Subqueries.Announce }, true},
		{"NoCompact", func(c *execConfig) { c.NoCompact = true }, func(s harness.Settings) any { return s.NoCompact }, true},
		{"Quiet", func(c *execConfig) { c.Quiet = true }, func(s harness.Settings) any { return s.Quiet }, true},
		{"Verbose", func(c *execConfig) { c.Verbose = true }, func(s harness.Settings) any { return s.Verbose }, true},
		{"SessionDir", func(c *execConfig) { c.SessionDir = "/s" }, func(s harness.Settings) any { return s.Session.Dir }, "/s"},
		{"NoSession", func(c *execConfig) { c.NoSession = true }, func(s harness.Settings) any { return s.Session.Off }, true},
		{"SessionID", func(c *execConfig) { c.SessionID = "id" }, func(s harness.Settings) any { return s.Session.ID }, "id"},
		{"SessionFile", func(c *execConfig) { c.SessionFile = "s.jsonl" }, func(s harness.Settings) any { return s.Session.File }, "s.jsonl"},
		{"Resume", func(c *execConfig) { c.Resume = "r" }, func(s harness.Settings) any { return s.Session.Resume }, "r"},
		{"Continue", func(c *execConfig) { c.Continue = true }, func(s harness.Settings) any { return s.Session.Continue }, true},
		{"Fork", func(c *execConfig) { c.Fork = true }, func(s harness.Settings) any { return s.Session.Fork }, true},
		{"Approve", func(c *execConfig) { c.Approve = []string{"all"} }, func(s harness.Settings) any { return s.Session.Approve }, []string{"all"}},
		{"DenyPending", func(c *execConfig) { c.DenyPending = true }, func(s harness.Settings) any { return s.Session.DenyPending }, true},
		{"Record", func(c *execConfig) { c.Record = "rec.json" }, func(s harness.Settings) any { return s.Traffic.Record }, "rec.json"},
		{"Replay", func(c *execConfig) { c.Replay = "tape.json" }, func(s harness.Settings) any { return s.Traffic.ReplayFile }, "tape.json"},
		{"ReplayMode", func(c *execConfig) { c.ReplayMode = cassette.Lenient }, func(s harness.Settings) any { return s.Traffic.Mode }, cassette.Lenient},
		{"cassette", func(c *execConfig) { c.cassette = tape }, func(s harness.Settings) any { return s.Traffic.Cassette }, tape},
		{"Patch", func(c *execConfig) { c.Patch = "-" }, func(s harness.Settings) any { return s.Patch.Dest }, "-"},
		{"PatchMaxSize", func(c *execConfig) { c.PatchMaxSize = 9 }, func(s harness.Settings) any { return s.Patch.MaxSize }, int64(9)},
		{"JSONSchema", func(c *execConfig) { c.JSONSchema = schema }, func(s harness.Settings) any { return s.JSONSchema }, schema},
		{"JSONSchemaRetries", func(c *execConfig) { c.JSONSchemaRetries = 3 }, func(s harness.Settings) any { return s.JSONSchemaRetries }, 3},
		{"chat", func(c *execConfig) { c.chat = true }, func(s harness.Settings) any { return s.LineMode }, true},
	}
	// Not the harness's: the sinks' options, and what the command layer
	// acts on after the run (--learn-policy, the resume line's flags).
	notCarried := []string{"Output", "IncludeThinking", "Color", "github", "LearnPolicy", "ResumeArgs", "LastMessage"}

	zero := execConfig{}.settings()
	var all execConfig
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.field] = true
		var c execConfig
		r.set(&c)
		r.set(&all)
		s := c.settings()
		if got := r.got(s); !reflect.DeepEqual(got, r.want) {
			t.Errorf("%s: settings carry %#v, want %#v", r.field, got, r.want)
		}
		if n := len(settingsLeaves(reflect.ValueOf(s), "", nil)); n != 1 {
			t.Errorf("%s sets %d fields of harness.Settings (%q), want 1", r.field, n, settingsLeaves(reflect.ValueOf(s), "", nil))
		}
	}
	if reflect.DeepEqual(zero, all.settings()) {
		t.Fatal("settings() carries nothing")
	}
	if zeroLeaves := zeroSettingsLeaves(reflect.ValueOf(all.settings()), "", nil); len(zeroLeaves) > 0 {
		t.Errorf("fields of harness.Settings no execConfig field sets: %q", zeroLeaves)
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(execConfig{})) {
		if f.Anonymous {
			continue
		}
		if !covered[f.Name] && !slices.Contains(notCarried, f.Name) {
			t.Errorf("execConfig.%s is neither carried by settings() nor named as not the harness's", f.Name)
		}
	}
}

// settingsLeaves are the names of the set leaves of v (a harness.Settings
// or one of its groups); a field of another package's type is a leaf.
func settingsLeaves(v reflect.Value, prefix string, out []string) []string {
	return walkSettings(v, prefix, out, false)
}

// zeroSettingsLeaves are the names of the unset leaves of v.
func zeroSettingsLeaves(v reflect.Value, prefix string, out []string) []string {
	return walkSettings(v, prefix, out, true)
}

func walkSettings(v reflect.Value, prefix string, out []string, zero bool) []string {
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == reflect.TypeOf(harness.Settings{}).PkgPath() {
			out = walkSettings(fv, prefix+f.Name+".", out, zero)
			continue
		}
		if fv.IsZero() == zero {
			out = append(out, prefix+f.Name)
		}
	}
	return out
}
