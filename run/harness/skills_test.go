package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/skills"
)

// writeSkill makes DIR/NAME/SKILL.md.
func writeSkill(t *testing.T, dir, name string) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: " + name + "\ndescription: The " + name + " procedure.\n---\nDo it.\n"
	if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, "SKILL.md")
}

func envOf(vars map[string]string) Env {
	return Env{LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
}

func TestDiscoverSkillsRoots(t *testing.T) {
	t.Parallel()
	home, xdg, ws := t.TempDir(), t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(home, ".agents", "skills"), "from-home")
	writeSkill(t, filepath.Join(xdg, "rubichan", "skills"), "from-xdg")
	writeSkill(t, filepath.Join(ws, ".claude", "skills"), "from-ws")
	env := envOf(map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg})
	for _, tc := range []struct {
		name string
		s    Settings
		want string
	}{
		{"headless", Settings{Dir: ws}, "from-home from-xdg"},
		{"trusted", Settings{Dir: ws, Policy: PolicySettings{TrustWorkspace: true}}, "from-home from-ws from-xdg"},
		{"line mode", Settings{Dir: ws, LineMode: true}, "from-home from-ws from-xdg"},
		{"off", Settings{Dir: ws, LineMode: true, Skills: SkillSettings{Off: true}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, err := DiscoverSkills(tc.s, env)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range set.Offered {
				got = append(got, s.Name)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("offered %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := DiscoverSkills(Settings{Dir: ws, Skills: SkillSettings{Dirs: []string{filepath.Join(ws, "nope")}}}, env); err == nil || !strings.Contains(err.Error(), "--skills") {
		t.Errorf("a missing --skills folder: err = %v", err)
	}
}

func TestSkillGrantsOutsideOnly(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(home, ".agents", "skills"), "outside")
	writeSkill(t, filepath.Join(ws, ".agents", "skills"), "inside")
	set, err := DiscoverSkills(Settings{Dir: ws, Policy: PolicySettings{TrustWorkspace: true}}, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	g := SkillGrants(set, ws)
	if len(g) != 1 || g[0].What != "skill outside" || !strings.HasSuffix(g[0].Dir, "/outside") {
		t.Errorf("grants = %+v, want the outside skill's folder only", g)
	}
}

// TestSkillActivations: reading a skill's SKILL.md is recorded as its
// activation; reading another file is not.
func TestSkillActivations(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	file := writeSkill(t, filepath.Join(ws, ".agents", "skills"), "rel")
	set, err := DiscoverSkills(Settings{Dir: ws, LineMode: true}, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	var got []agent.Event
	emit := SkillActivations(set, ws, func(ev agent.Event) { got = append(got, ev) })
	call := func(path string) agent.Event {
		in, _ := json.Marshal(map[string]string{"path": path})
		return agent.Event{Kind: agent.EventToolAllowed, Tool: &agent.ToolCallInfo{Name: "read", Input: in}}
	}
	emit(call(".agents/skills/rel/SKILL.md"))
	emit(call(file))
	emit(call("README.md"))
	var notes []string
	for _, ev := range got {
		if ev.Kind == agent.EventNotice {
			notes = append(notes, ev.Text)
		}
	}
	if len(got) != 5 || len(notes) != 2 || !strings.Contains(notes[0], "skill rel activated") {
		t.Errorf("events %d, notes %q; want every event passed on and two activations of rel", len(got), notes)
	}
	if p, ok := SkillPrompt(set, func(string) {}); !ok || p.Name != "skills" || !strings.Contains(p.Text, "- rel: The rel procedure.") {
		t.Errorf("SkillPrompt = %+v, %v", p, ok)
	}
	if _, ok := SkillPrompt(skills.Set{}, func(string) {}); ok {
		t.Error("a prompt part for no skills")
	}
	if in := InitSkills(set); len(in) != 1 || in[0].Name != "rel" || len(in[0].SHA256) != 64 {
		t.Errorf("InitSkills = %+v", in)
	}
}

// TestSkillPromptLeftOut: when the catalogue's bound leaves skills out, the
// run says so on stderr too, not only the model in its prompt.
func TestSkillPromptLeftOut(t *testing.T) {
	t.Parallel()
	var set skills.Set
	for i := range 150 {
		s := skills.Skill{File: "/skills/s/SKILL.md"}
		s.Name, s.Description = fmt.Sprintf("skill-%03d", i), strings.Repeat("d", 200)
		set.Offered = append(set.Offered, s)
	}
	var notes []string
	p, ok := SkillPrompt(set, func(n string) { notes = append(notes, n) })
	if !ok || len(p.Text) > skills.DefaultCatalogueMax {
		t.Fatalf("part of %d bytes", len(p.Text))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "of 150 skills") {
		t.Errorf("notes = %q, want one saying how many of the 150 are listed", notes)
	}
	notes = nil
	SkillPrompt(skills.Set{Offered: set.Offered[:3]}, func(n string) { notes = append(notes, n) })
	if len(notes) != 0 {
		t.Errorf("notes = %q for a catalogue that fits", notes)
	}
}
