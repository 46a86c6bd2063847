package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fixtures follow the Agent Skills specification as published at
// agentskills.io/specification (read 2026-11-27) and the reference rules of
// its validator, skills-ref (agentskills/agentskills,
// skills-ref/src/skills_ref/validator.py at commit 00d5a46): the six fields
// only; name at most 64 characters, lowercase, no leading, trailing or
// doubled hyphen, equal to the folder's name; description non-empty, at most
// 1024 characters; compatibility at most 500; allowed-tools a string or a
// list of strings; metadata a map of strings to strings. One deliberate
// difference: a name here is ASCII (the rule), where skills-ref also
// admits other lowercase Unicode letters.
func TestLoadFixtures(t *testing.T) {
	t.Parallel()
	ws := filepath.Join("testdata", "ws")
	for _, tc := range []struct {
		dir     string
		valid   bool
		problem string // a part of the first problem's text
		line    int
	}{
		{"testdata/user/release-notes", true, "", 0},
		{ws + "/.agents/skills/triage-flaky-test", true, "", 0},
		{ws + "/.claude/skills/bash-all", true, "", 0},
		{ws + "/.claude/skills/Bad_Name", false, `name "Bad_Name"`, 2},
		{ws + "/.claude/skills/not-this-name", false, `name "another-name" is not the folder's name "not-this-name"`, 2},
		{ws + "/.claude/skills/long-desc", false, "description has 1025 characters, more than 1024", 3},
		{ws + "/.claude/skills/no-frontmatter", false, "no frontmatter", 1},
	} {
		t.Run(filepath.Base(tc.dir), func(t *testing.T) {
			t.Parallel()
			s := Load(tc.dir, SourceFlag)
			if s.Valid() != tc.valid {
				t.Fatalf("Valid() = %v, want %v; problems %v", s.Valid(), tc.valid, s.Problems)
			}
			if !tc.valid {
				p := s.Problems[0]
				if !strings.Contains(p.Msg, tc.problem) || p.Line != tc.line {
					t.Errorf("first problem = %+v, want line %d containing %q", p, tc.line, tc.problem)
				}
			}
			if len(s.SHA256) != 64 {
				t.Errorf("SHA256 = %q", s.SHA256)
			}
			if !filepath.IsAbs(s.File) || filepath.Base(s.File) != "SKILL.md" {
				t.Errorf("File = %q, want an absolute .../SKILL.md", s.File)
			}
		})
	}
}

func TestAllowedToolsRecorded(t *testing.T) {
	t.Parallel()
	s := Load("testdata/ws/.claude/skills/bash-all", SourceProject)
	if want := []string{"Bash(*)", "Read", "Write"}; !slices.Equal(s.AllowedTools, want) {
		t.Errorf("AllowedTools = %q, want %q", s.AllowedTools, want)
	}
}

func names(ss []Skill) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name+"@"+string(s.Source))
	}
	return out
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	userDir := filepath.Join(home, ".agents", "skills")
	if err := os.MkdirAll(filepath.Dir(userDir), 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/user")
	if err := os.Symlink(abs, userDir); err != nil {
		t.Fatal(err)
	}
	ws, _ := filepath.Abs("testdata/ws")
	for _, tc := range []struct {
		name    string
		roots   Roots
		offered []string
		notes   []string // parts of the notes, in order
		err     bool
	}{
		{"headless untrusted", Roots{Home: home, Workspace: ws},
			[]string{"release-notes@user", "shared@user"},
			[]string{"ignoring the skills in .agents/skills in the workspace (a checkout may be untrusted); pass --trust-workspace", "ignoring the skills in .claude/skills"}, false},
		{"trusted: project wins the collision, invalid skipped", Roots{Home: home, Workspace: ws, TrustWorkspace: true},
			[]string{"bash-all@project", "release-notes@user", "shared@project", "triage-flaky-test@project"},
			[]string{"skill shared from " + ws + "/.agents/skills/shared/SKILL.md overrides the one from " + abs + "/shared/SKILL.md",
				"skipping skill " + ws + "/.claude/skills/Bad_Name/SKILL.md:2:",
				"skipping skill " + ws + "/.claude/skills/long-desc/SKILL.md:3:",
				"skipping skill " + ws + "/.claude/skills/no-frontmatter/SKILL.md:1:",
				"skipping skill " + ws + "/.claude/skills/not-this-name/SKILL.md:2:"}, false},
		{"--skills inside the untrusted workspace is trusted", Roots{Home: home, Workspace: ws, Dirs: []string{ws + "/.agents/skills"}},
			[]string{"release-notes@user", "shared@flag", "triage-flaky-test@flag"},
			[]string{"ignoring the skills in .claude/skills", "skill shared from " + ws + "/.agents/skills/shared/SKILL.md overrides"}, false},
		{"--skills names one skill folder", Roots{Dirs: []string{ws + "/.agents/skills/triage-flaky-test"}},
			[]string{"triage-flaky-test@flag"}, nil, false},
		{"XDG config dir", Roots{ConfigHome: filepath.Join(home, "nothing"), Workspace: t.TempDir()}, nil, nil, false},
		{"missing --skills dir", Roots{Dirs: []string{filepath.Join(home, "missing")}}, nil, nil, true},
		{"off", Roots{Home: home, Workspace: ws, TrustWorkspace: true, Off: true}, nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, err := Discover(tc.roots)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if got := names(set.Offered); !slices.Equal(got, tc.offered) {
				t.Errorf("offered = %q, want %q", got, tc.offered)
			}
			if len(set.Notes) != len(tc.notes) {
				t.Fatalf("notes = %q, want %d like %q", set.Notes, len(tc.notes), tc.notes)
			}
			for i, n := range tc.notes {
				if !strings.Contains(set.Notes[i], n) {
					t.Errorf("note %d = %q, want it to contain %q", i, set.Notes[i], n)
				}
			}
		})
	}
}

func TestDiscoverListsUntrustedAndInvalid(t *testing.T) {
	t.Parallel()
	ws, _ := filepath.Abs("testdata/ws")
	set, err := Discover(Roots{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.All) != 7 {
		t.Fatalf("All has %d skills, want the 7 of the workspace: %q", len(set.All), names(set.All))
	}
	for _, s := range set.All {
		if s.Trusted {
			t.Errorf("%s is trusted in an untrusted workspace", s.Dir)
		}
	}
}

// TestProjectSkillLeavingWorkspace: a workspace skill folder that is a link
// out of the workspace is not the checkout's to offer: skipped with a note,
// so no read rule is granted for where it points.
func TestProjectSkillLeavingWorkspace(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(outside, "lured")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: lured\ndescription: x\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".agents", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(ws, ".agents", "skills", "lured")); err != nil {
		t.Fatal(err)
	}
	set, err := Discover(Roots{Workspace: ws, TrustWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Offered) != 0 || len(set.Notes) != 1 || !strings.Contains(set.Notes[0], "leaves the workspace") {
		t.Errorf("offered %q, notes %q; want none offered and a note", names(set.Offered), set.Notes)
	}
	// The same folder through --skills is the user's choice.
	set, err = Discover(Roots{Workspace: ws, Dirs: []string{dir}})
	if err != nil || len(set.Offered) != 1 {
		t.Errorf("--skills: offered %q, err %v", names(set.Offered), err)
	}
}
