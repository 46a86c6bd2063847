package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Guarded is a file the run keeps from every write, as it keeps the policy
// file: its own records, such as the session log and the cassette, which a
// tool must not forge or wipe.
type Guarded struct {
	// Path is the file's path, absolute or relative to the current
	// directory; it need not exist yet.
	Path string
	// What names the file in the reason of a denial: "the run's session log".
	What string
}

// guardedFile is a [Guarded] by its absolute slash names: as given, and
// with the symlinks of its directory evaluated when that differs.
type guardedFile struct {
	names []string
	what  string
}

// WithGuarded returns a copy of the policy that also denies every write to
// the files g names, with the guard rule, as it denies writes to the policy
// file: whatever the rules allow (write:** included), by the write and edit
// tools and by the writes a shell command is judged to make.
func (p *Policy) WithGuarded(g ...Guarded) *Policy {
	q := *p
	q.guarded = append([]guardedFile(nil), p.guarded...)
	for _, f := range g {
		if f.Path == "" {
			continue
		}
		abs, err := filepath.Abs(f.Path)
		if err != nil {
			continue
		}
		gf := guardedFile{names: []string{path.Clean(filepath.ToSlash(abs))}, what: f.What}
		if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			if real := path.Join(filepath.ToSlash(dir), filepath.Base(abs)); real != gf.names[0] {
				gf.names = append(gf.names, real)
			}
		}
		q.guarded = append(q.guarded, gf)
	}
	return &q
}

// guardedWrite returns what the cleaned path is when the policy guards it
// from writes (the policy file, or a [Guarded] file), else "".
func (p *Policy) guardedWrite(clean string) string {
	if p.protected(clean) {
		return "the policy file"
	}
	for _, g := range p.guarded {
		for _, name := range g.names {
			if own, _ := p.normalize(name); strings.EqualFold(clean, own) {
				return g.what
			}
		}
	}
	return ""
}

// guardedBeneath returns what [Guarded] file lies beneath the cleaned
// directory dir (the workspace's top, ".", holds every file inside it),
// else "": a write of dir may replace, move or remove it.
func (p *Policy) guardedBeneath(dir string) string {
	for _, g := range p.guarded {
		for _, name := range g.names {
			own, outside := p.normalize(name)
			if dir == "." && !outside || beneath(own, dir) {
				return g.what
			}
		}
	}
	return ""
}

// beneath reports whether the cleaned path name lies beneath the cleaned
// directory dir (not dir itself), letter case aside.
func beneath(name, dir string) bool {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	return len(name) > len(prefix) && strings.EqualFold(name[:len(prefix)], prefix)
}

// guardedDirFact is the fact of a write of directory clean, which may
// replace, move or remove the guarded file what beneath it (mv DIR, rm -r
// DIR, tar -x): an ask, as nothing can tell in advance what it does there.
func guardedDirFact(kind FactKind, clean, what string) Fact {
	f := guard(kind, clean, fmt.Sprintf("a write of %s may replace, move or remove %s beneath it", clean, what))
	f.Decision = Ask
	return f
}
