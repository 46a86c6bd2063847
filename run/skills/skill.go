package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Source says where a skill was found.
type Source string

// The sources, in the order discovery reads them (a later one wins a name
// collision).
const (
	SourceUser    Source = "user"    // ~/.agents/skills, $XDG_CONFIG_HOME/rubichan/skills
	SourceProject Source = "project" // .agents/skills, .claude/skills in the workspace
	SourceFlag    Source = "flag"    // --skills DIR
)

// MaxFileSize is the largest SKILL.md read; a larger one is a problem.
const MaxFileSize = 1 << 20

// Skill is one skill folder as found: its frontmatter, where it is, where
// it came from, whether it is trusted, and its problems (none for a valid
// skill).
type Skill struct {
	Frontmatter
	Dir    string // the folder, absolute, symbolic links resolved
	File   string // Dir/SKILL.md
	Source Source
	// Trusted is false for a workspace skill in a headless run without
	// --trust-workspace: listed, never offered.
	Trusted  bool
	Problems []Problem
	SHA256   string // hex SHA-256 of SKILL.md; "" when unreadable
}

// Valid reports whether the skill follows the specification.
func (s Skill) Valid() bool { return len(s.Problems) == 0 }

// ProblemTexts are the problems as "FILE:LINE: MSG" texts (FILE alone
// when the line is unknown), an empty list for a valid skill.
func (s Skill) ProblemTexts() []string {
	out := []string{}
	for _, p := range s.Problems {
		if p.Line > 0 {
			out = append(out, fmt.Sprintf("%s:%d: %s", s.File, p.Line, p.Msg))
		} else {
			out = append(out, s.File+": "+p.Msg)
		}
	}
	return out
}

// Load reads the skill in folder dir: its SKILL.md's frontmatter, checked
// against the specification, and its name against the folder's. Load
// never fails: what is wrong is in the skill's Problems.
func Load(dir string, src Source) Skill {
	s := Skill{Source: src, Trusted: true}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	s.Dir, s.File = dir, filepath.Join(dir, "SKILL.md")
	data, err := s.Read()
	if err != nil {
		s.Problems = []Problem{{Msg: err.Error()}}
		return s
	}
	sum := sha256.Sum256(data)
	s.SHA256 = hex.EncodeToString(sum[:])
	s.Frontmatter, s.Problems = ParseFrontmatter(data)
	if base := filepath.Base(dir); s.Name != "" && ValidName(s.Name) && s.Name != base {
		s.Problems = append(s.Problems, Problem{s.NameLine, fmt.Sprintf("name %q is not the folder's name %q", s.Name, base)})
	}
	return s
}

// ReadFile reads a SKILL.md of at most MaxFileSize bytes. Anything but a
// regular file (a link a checkout commits to /dev/stdin, a FIFO,
// /dev/zero) is an error found before it is opened: reading it could eat
// the run's standard input, hang or fill memory.
func ReadFile(file string) ([]byte, error) {
	if fi, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("skills: %s is not a regular file", file)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("skills: %s is not a regular file", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("skills: read %s: %w", file, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("skills: %s is larger than %d bytes", file, MaxFileSize)
	}
	return data, nil
}

// Read reads the skill's SKILL.md again, as [ReadFile] (for /skill). A
// workspace skill's SKILL.md must still lie in its folder, links
// resolved: the model may have made it a link since discovery.
func (s Skill) Read() ([]byte, error) {
	if err := s.fileInFolder(); err != nil {
		return nil, err
	}
	return ReadFile(s.File)
}

// fileInFolder refuses a workspace skill whose SKILL.md is a link out of
// its folder: the checkout pointing at a file of the user's. A user's or
// a --skills skill may be a link (a dotfiles manager makes them).
func (s Skill) fileInFolder() error {
	if s.Source != SourceProject {
		return nil
	}
	real, err := filepath.EvalSymlinks(s.File)
	if err != nil {
		return fmt.Errorf("skills: %w", err)
	}
	if rel, err := filepath.Rel(s.Dir, real); err != nil || rel != "SKILL.md" {
		return fmt.Errorf("skills: %s is a link out of its folder (to %s)", s.File, real)
	}
	return nil
}
