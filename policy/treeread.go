package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Tree reads and removals judged on the files they meet. A recursive
// search (grep -r, find -exec grep, xargs grep) shows what it reads, and
// unlike the grep tool it cannot leave out a file the read rules refuse:
// so it is refused when one of the files it would read is refused. When
// the caller lists the files beneath the directory ([Action.Files]), that
// is decided on those files, as the grep tool decides; otherwise on the
// names a deny or ask rule could match beneath it. A removal (rm -r)
// touches only what exists, so with a listing it is judged by the files
// it would remove.

// maxTreeFacts bounds the files of one tree that are judged one by one.
const maxTreeFacts = 20000

// nameFilter is what a search lets through: files whose base name matches
// one of include (all when empty), none of exclude, beneath no directory
// whose name matches one of excludeDirs. Patterns are shell globs matched
// without regard to case (only ever wider than the program's own).
type nameFilter struct {
	include, exclude, excludeDirs []word
}

// key tells filters apart, so that two searches of one directory through
// different filters stay two facts.
func (f *nameFilter) key() string {
	if f == nil {
		return ""
	}
	var b strings.Builder
	for _, list := range [][]word{f.include, f.exclude, f.excludeDirs} {
		b.WriteString("\x00")
		for _, w := range list {
			fmt.Fprintf(&b, "%v:%s\x01", w.exact, w.value+w.glob)
		}
	}
	return b.String()
}

// lets reports whether the filter lets the file at rel (relative to the
// searched directory) through.
func (f *nameFilter) lets(rel string) bool {
	if f == nil {
		return true
	}
	segs := strings.Split(rel, "/")
	for _, d := range segs[:len(segs)-1] {
		if anyGlob(f.excludeDirs, d, false) {
			return false
		}
	}
	base := segs[len(segs)-1]
	if anyGlob(f.exclude, base, false) {
		return false
	}
	return len(f.include) == 0 || !allExact(f.include) || anyGlob(f.include, base, true)
}

// allExact reports whether every word is read exactly.
func allExact(ws []word) bool {
	for _, w := range ws {
		if !w.exact {
			return false
		}
	}
	return true
}

// anyGlob reports whether one of the exactly read patterns matches name;
// an inexact pattern matches when orInexact.
func anyGlob(pats []word, name string, orInexact bool) bool {
	for _, p := range pats {
		if !p.exact {
			if orInexact {
				return true
			}
			continue
		}
		if ok, err := path.Match(strings.ToLower(p.value), strings.ToLower(name)); ok && err == nil {
			return true
		}
	}
	return false
}

// excludesPattern reports whether the filter surely leaves out every file
// that the path pattern pat matches: its base-name part cannot meet an
// include pattern, or a directory part is an excluded directory.
func (f *nameFilter) excludesPattern(pat string) bool {
	if f == nil {
		return false
	}
	segs := strings.Split(strings.ToLower(pat), "/")
	for _, s := range segs[:len(segs)-1] {
		if !hasMeta(s) && anyGlob(f.excludeDirs, s, false) {
			return true
		}
	}
	last := segs[len(segs)-1]
	if !hasMeta(last) && anyGlob(f.exclude, last, false) {
		return true
	}
	if len(f.include) == 0 || !allExact(f.include) {
		return false
	}
	for _, in := range f.include {
		if globsMeet(strings.ToLower(in.value), last) {
			return false
		}
	}
	return true
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[\\{") }

// globsMeet reports whether some name could match both globs. It errs
// towards yes: two globs meet unless one is literal and the other does
// not match it, or their literal prefixes or suffixes differ.
func globsMeet(a, b string) bool {
	switch {
	case !hasMeta(a):
		ok, err := path.Match(b, a)
		return ok || err != nil
	case !hasMeta(b):
		ok, err := path.Match(a, b)
		return ok || err != nil
	}
	pa, pb := a[:strings.IndexAny(a, "*?[\\{")], b[:strings.IndexAny(b, "*?[\\{")]
	if !strings.HasPrefix(pa, pb) && !strings.HasPrefix(pb, pa) {
		return false
	}
	sa, sb := a[strings.LastIndexAny(a, "*?]\\}")+1:], b[strings.LastIndexAny(b, "*?]\\}")+1:]
	return strings.HasSuffix(sa, sb) || strings.HasSuffix(sb, sa)
}

// treeReadFact judges a search of every file beneath dir that the filter
// lets through.
func (p *Policy) treeReadFact(dir string, filter *nameFilter, files func(string) ([]string, bool)) Fact {
	f := p.pathFact(ClassRead, FactRead, dir)
	if f.Decision == Deny {
		return f
	}
	clean, _ := p.normalize(dir)
	f.Value = strings.TrimSuffix(clean, "/") + "/**"
	if files != nil {
		if list, ok := files(clean); ok && len(list) <= maxTreeFacts {
			for _, name := range list {
				if !filter.lets(relTo(clean, name)) {
					continue
				}
				g := p.pathFact(ClassRead, FactRead, name)
				if g.Decision > f.Decision || g.Decision == 0 {
					f.Decision, f.Rule = g.Decision, g.Rule
					f.Reason = fmt.Sprintf("the command would read %s, which %s; the grep tool leaves such files out, "+
						"a search in the shell cannot: use the grep tool, or leave the file out of the search "+
						"(--include, --exclude, find -name)", g.Value, g.Reason)
				}
			}
			if f.Decision == Allow {
				f.Reason = fmt.Sprintf("every file the command would read beneath %s (listed when judged) is allowed: %s", clean, f.Reason)
			}
			return f
		}
	}
	for _, r := range p.rules {
		if r.class != ClassRead || r.decision == Allow || r.decision <= f.Decision {
			continue
		}
		for _, pat := range r.paths {
			if mayMatchBeneath(pat, clean) && !filter.excludesPattern(pat) {
				f.Decision, f.Rule = r.decision, r.id
				f.Reason = fmt.Sprintf("the command may read anything beneath %s (a search, or a copy or move of "+
					"a directory), which %s; the grep tool leaves such files out, a command in the shell cannot: "+
					"use the grep tool, or leave them out of the search (--include, --exclude, find -name)", clean, r.explain(pat))
				break
			}
		}
	}
	return f
}

// removalFact judges a removal of dir and everything beneath it (rm -r)
// on the files the caller lists: each is a write judged by the write
// rules and the guards. Without a listing it is a tree write.
func (p *Policy) removalFact(dir string, files func(string) ([]string, bool)) Fact {
	if files == nil {
		return p.treeFact(ClassWrite, FactWrite, dir)
	}
	clean, _ := p.normalize(dir)
	list, ok := files(clean)
	if !ok || len(list) > maxTreeFacts {
		return p.treeFact(ClassWrite, FactWrite, dir)
	}
	f := p.pathFact(ClassWrite, FactWrite, dir)
	if f.Decision == Deny {
		return f
	}
	// A guarded file is known by its path, listed or not (a cassette is
	// written at the end): removing a directory above it asks, "." too.
	if what := p.guardedBeneath(clean); what != "" {
		return guardedDirFact(FactWrite, clean, what)
	}
	f.Value = strings.TrimSuffix(clean, "/") + "/**"
	for _, name := range list {
		g := p.pathFact(ClassWrite, FactWrite, name)
		if g.Decision > f.Decision || g.Decision == 0 {
			f.Decision, f.Rule = g.Decision, g.Rule
			f.Reason = fmt.Sprintf("the command removes %s, which %s; remove the files you mean by name, "+
				"or remove %s in a call of its own that a rule allows", g.Value, g.Reason, g.Value)
		}
	}
	if f.Decision == Allow {
		f.Reason = fmt.Sprintf("nothing beneath %s (listed when judged) is a guarded path, and the write rules allow it all: %s", clean, f.Reason)
	}
	return f
}

// relTo returns name, a path beneath dir as [Action.Files] gives it,
// relative to dir.
func relTo(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return strings.TrimPrefix(strings.TrimPrefix(name, strings.TrimSuffix(dir, "/")), "/")
}

// globReadFact judges a reader's read of every file a glob pattern
// (workspace-relative, or absolute) may expand to: on the files the
// caller lists beneath the pattern's fixed leading directory, else on
// what a deny or ask rule could match there.
func (p *Policy) globReadFact(pattern string, files func(string) ([]string, bool)) Fact {
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs)-1 && !hasMeta(segs[i]) {
		i++
	}
	dir := strings.Join(segs[:i], "/")
	switch {
	case dir == "" && strings.HasPrefix(pattern, "/"):
		dir = "/"
	case dir == "":
		dir = "."
	}
	if slices.Contains(segs, "..") {
		return guard(FactRead, pattern, "a glob with a .. element may leave the workspace")
	}
	f := p.pathFact(ClassRead, FactRead, dir)
	if f.Decision == Deny {
		return f
	}
	// the pattern from the directory's workspace-relative form, so that
	// the names a listing gives (in that form) meet it: ./* is *
	clean, _ := p.normalize(dir)
	pattern = path.Join(append([]string{clean}, segs[i:]...)...)
	segs = strings.Split(pattern, "/")
	f.Value, f.exact = pattern, false
	if files != nil {
		if list, ok := files(clean); ok && len(list) <= maxTreeFacts {
			for _, name := range list {
				if ok, err := doublestar.Match(pattern, name); err != nil || !ok {
					continue
				}
				g := p.pathFact(ClassRead, FactRead, name)
				if g.Decision > f.Decision || g.Decision == 0 {
					f.Decision, f.Rule = g.Decision, g.Rule
					f.Reason = fmt.Sprintf("the glob matches %s, which %s; name the files you mean", g.Value, g.Reason)
				}
			}
			return f
		}
	}
	last := strings.ToLower(segs[len(segs)-1])
	for _, r := range p.rules {
		if r.class != ClassRead || r.decision == Allow || r.decision <= f.Decision {
			continue
		}
		for _, pat := range r.paths {
			ps := strings.Split(strings.ToLower(pat), "/")
			if mayMatchBeneath(pat, clean) && globsMeet(last, ps[len(ps)-1]) {
				f.Decision, f.Rule = r.decision, r.id
				f.Reason = fmt.Sprintf("the glob %s may match a file that %s; name the files you mean", pattern, r.explain(pat))
				break
			}
		}
	}
	return f
}

// splitReadFact judges a reader run by xargs over the names a find
// prints: a tree read, and, since xargs splits its input at blanks, tabs,
// newlines, quotes and backslashes, a name holding one would reach the
// reader as other names. With a listing that holds no such name it is
// the tree read; otherwise it is asked, with the way out.
func (p *Policy) splitReadFact(dir string, filter *nameFilter, files func(string) ([]string, bool)) Fact {
	f := p.treeReadFact(dir, filter, files)
	if f.Decision != Allow {
		return f
	}
	const way = "; use find … -print0 | xargs -0, or find … -exec"
	if files == nil {
		f.Decision, f.Rule = Ask, RuleGuard
		f.Reason = "xargs splits the names find prints at blanks and quotes, and without a listing of the files the " +
			"analysis cannot tell whether one holds them" + way
		return f
	}
	clean, _ := p.normalize(dir)
	list, ok := files(clean)
	if !ok {
		f.Decision, f.Rule = Ask, RuleGuard
		f.Reason = "xargs splits the names find prints at blanks and quotes, and the files beneath " + dir +
			" could not all be listed" + way
		return f
	}
	for _, name := range list {
		if strings.ContainsAny(name, " \t\n'\"\\") && filter.lets(relTo(clean, name)) {
			f.Decision, f.Rule = Ask, RuleGuard
			f.Reason = fmt.Sprintf("xargs would split the found name %q at its blank or quote into other names%s", name, way)
			return f
		}
	}
	return f
}
