package harness

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/skills"
)

// SkillSettings are the skill flags.
type SkillSettings struct {
	Dirs []string // --skills DIR, in order
	Off  bool     // --no-skills
}

// DiscoverSkills finds the run's skills (see [skills.Discover]): the
// user's under $HOME and $XDG_CONFIG_HOME, the workspace's — offered when
// the workspace is trusted: --trust-workspace, or a person present in
// line mode — and the --skills folders. A --skills folder that cannot be
// read is a usage error (exit 2).
func DiscoverSkills(s Settings, env Env) (skills.Set, error) {
	look := env.LookupEnv
	if look == nil {
		look = func(string) (string, bool) { return "", false }
	}
	home, _ := look("HOME")
	cfgHome, ok := look("XDG_CONFIG_HOME")
	if !ok || !filepath.IsAbs(cfgHome) {
		cfgHome = ""
		if home != "" {
			cfgHome = filepath.Join(home, ".config")
		}
	}
	set, err := skills.Discover(skills.Roots{
		Home: home, ConfigHome: cfgHome, Workspace: s.Dir, Dirs: s.Skills.Dirs,
		TrustWorkspace: s.Policy.TrustWorkspace || s.LineMode, Off: s.Skills.Off,
	})
	if err != nil {
		return set, exit.UsageError{Err: err}
	}
	return set, nil
}

// SkillGrants are the read rules the offered skills outside the workspace
// root need: each skill's folder, readable by the file tools (exactly
// it), named "skill NAME". Skills inside the workspace need none.
func SkillGrants(set skills.Set, root string) []policy.ReadGrant {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	var out []policy.ReadGrant
	for _, s := range set.Offered {
		if rel, err := filepath.Rel(root, s.Dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			continue
		}
		out = append(out, policy.ReadGrant{Dir: s.Dir, What: "skill " + s.Name})
	}
	return out
}

// SkillPrompt is the system prompt's part that lists the offered skills
// (the catalogue, bounded by [skills.DefaultCatalogueMax]); false when
// there are none. When the bound leaves skills out, notice says so.
func SkillPrompt(set skills.Set, notice func(string)) (session.PromptPart, bool) {
	text, listed := skills.CatalogueListed(set.Offered, skills.DefaultCatalogueMax)
	if n := len(set.Offered); listed < n {
		notice(fmt.Sprintf("the skills catalogue lists %d of %d skills, to stay within %d bytes of the system prompt; the model is told the rest were left out", listed, n, skills.DefaultCatalogueMax))
	}
	return session.PromptPart{Name: "skills", Text: text}, text != ""
}

// InitSkills are the init event's skills: each offered skill's name and
// the digest of its SKILL.md.
func InitSkills(set skills.Set) []events.Skill {
	var out []events.Skill
	for _, s := range set.Offered {
		out = append(out, events.Skill{Name: s.Name, SHA256: s.SHA256})
	}
	return out
}

// SkillActivations wraps emit: when the policy allows a read of an
// offered skill's SKILL.md — how the model activates a skill — a notice
// "skill NAME activated" follows the event, which the session log
// records. Every event is passed on unchanged.
func SkillActivations(set skills.Set, root string, emit func(agent.Event)) func(agent.Event) {
	if len(set.Offered) == 0 {
		return emit
	}
	files := map[string]string{}
	for _, s := range set.Offered {
		files[s.File] = s.Name
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return func(ev agent.Event) {
		emit(ev)
		if ev.Kind != agent.EventToolAllowed || ev.Tool == nil || ev.Tool.Name != "read" {
			return
		}
		var in struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(ev.Tool.Input, &in) != nil || in.Path == "" {
			return
		}
		p := in.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if name, ok := files[filepath.Clean(p)]; ok {
			emit(agent.Event{Kind: agent.EventNotice, Turn: ev.Turn, Run: ev.Run, Text: "skill " + name + " activated (" + in.Path + ")"})
		}
	}
}
