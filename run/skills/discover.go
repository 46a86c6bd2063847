package skills

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Roots say where discovery looks.
type Roots struct {
	// Home is the user's home directory (~/.agents/skills); "": none.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME, or ~/.config
	// (ConfigHome/rubichan/skills); "": none.
	ConfigHome string
	// Workspace is the workspace root, absolute (.agents/skills,
	// .claude/skills); "": none.
	Workspace string
	// Dirs are the --skills folders, in order: each a folder of skill
	// folders or one skill folder. They are the user's explicit choice:
	// trusted wherever they are.
	Dirs []string
	// TrustWorkspace offers the workspace's skills: --trust-workspace, or
	// a person present in line mode.
	TrustWorkspace bool
	// Off is --no-skills: no discovery at all.
	Off bool
}

// WorkspaceDirs are the workspace's skill folders, relative to its root,
// in the order read.
var WorkspaceDirs = []string{".agents/skills", ".claude/skills"}

// Set is what discovery found.
type Set struct {
	// Offered are the valid, trusted skills the run offers, each name
	// once (the last found wins), sorted by name.
	Offered []Skill
	// All are every skill folder found, in discovery order: invalid,
	// untrusted and overridden ones too.
	All []Skill
	// Notes say what was skipped, ignored or overridden, each naming the
	// SKILL.md (and the line, when known).
	Notes []string
}

// place is one folder of skill folders.
type place struct {
	dir    string
	source Source
	shown  string // how a note names it; "" for dir
	single bool   // dir is one skill folder (a --skills DIR holding SKILL.md)
}

// Discover finds the skills under r, in this order, a later one winning a
// name collision (with a note): the user's ~/.agents/skills and
// $XDG_CONFIG_HOME/rubichan/skills, the workspace's .agents/skills and
// .claude/skills, then each --skills folder. Workspace skills are offered
// only when r.TrustWorkspace (otherwise one note per folder, naming
// --trust-workspace); an invalid skill is skipped with a note naming its
// SKILL.md and line. The error is a --skills folder that cannot be read.
func Discover(r Roots) (Set, error) {
	var set Set
	if r.Off {
		return set, nil
	}
	places, err := r.places()
	if err != nil {
		return set, err
	}
	byName := map[string]int{} // name → index in offered
	var offered []Skill
	for _, pl := range places {
		found := pl.skills()
		if len(found) == 0 {
			continue
		}
		if pl.source == SourceProject && !r.TrustWorkspace {
			for i := range found {
				found[i].Trusted = false
			}
			set.All = append(set.All, found...)
			set.Notes = append(set.Notes, fmt.Sprintf("ignoring the skills in %s in the workspace (a checkout may be untrusted); pass --trust-workspace to use them", pl.shown))
			continue
		}
		if pl.source == SourceProject {
			confine(found, r.Workspace)
		}
		set.All = append(set.All, found...)
		for _, s := range found {
			if !s.Valid() {
				set.Notes = append(set.Notes, "skipping skill "+s.ProblemTexts()[0])
				continue
			}
			if i, dup := byName[s.Name]; dup {
				set.Notes = append(set.Notes, fmt.Sprintf("skill %s from %s overrides the one from %s", s.Name, s.File, offered[i].File))
				offered[i] = s
				continue
			}
			byName[s.Name] = len(offered)
			offered = append(offered, s)
		}
	}
	slices.SortFunc(offered, func(a, b Skill) int { return cmp.Compare(a.Name, b.Name) })
	set.Offered = offered
	return set, nil
}

// confine makes a problem of each workspace skill whose folder, links
// resolved, is not inside the workspace: a link out of the checkout is not
// the checkout's to offer, nor to make readable.
func confine(found []Skill, workspace string) {
	root := workspace
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	for i, s := range found {
		rel, err := filepath.Rel(root, s.Dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			found[i].Problems = append(found[i].Problems, Problem{Msg: "its folder is a link that leaves the workspace (to " + s.Dir + ")"})
		}
	}
}

// places are the folders to read, in order.
func (r Roots) places() ([]place, error) {
	var out []place
	if r.Home != "" {
		out = append(out, place{dir: filepath.Join(r.Home, ".agents", "skills"), source: SourceUser})
	}
	if r.ConfigHome != "" {
		out = append(out, place{dir: filepath.Join(r.ConfigHome, "rubichan", "skills"), source: SourceUser})
	}
	if r.Workspace != "" {
		for _, d := range WorkspaceDirs {
			dir := filepath.Join(r.Workspace, filepath.FromSlash(d))
			if !r.given(dir) { // a --skills folder reads it, trusted
				out = append(out, place{dir: dir, source: SourceProject, shown: d})
			}
		}
	}
	for _, d := range r.Dirs {
		fi, err := os.Stat(d)
		if err != nil {
			return nil, fmt.Errorf("skills: --skills %s: %w", d, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("skills: --skills %s: not a folder", d)
		}
		_, err = os.Stat(filepath.Join(d, "SKILL.md"))
		out = append(out, place{dir: d, source: SourceFlag, single: err == nil})
	}
	for i := range out {
		if out[i].shown == "" {
			out[i].shown = out[i].dir
		}
	}
	return out, nil
}

// given reports whether dir is also a --skills folder.
func (r Roots) given(dir string) bool {
	for _, d := range r.Dirs {
		if a, err := filepath.Abs(d); err == nil && filepath.Clean(a) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

// skills loads the skill folders of pl, sorted by folder name; a folder
// without a SKILL.md is not a skill, and a missing place has none.
func (pl place) skills() []Skill {
	if pl.single {
		return []Skill{Load(pl.dir, pl.source)}
	}
	entries, err := os.ReadDir(pl.dir)
	if err != nil {
		return nil
	}
	var out []Skill
	for _, e := range entries {
		dir := filepath.Join(pl.dir, e.Name())
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		out = append(out, Load(dir, pl.source))
	}
	return out
}
