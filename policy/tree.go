package policy

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// treeFact judges a read or write of anything beneath a directory, which
// a command does when the names it touches are not on its command line
// (tar -x, unzip, curl -O, cp -r, rm -r, git grep --untracked). It is the
// strictest of: the directory itself; every deny or ask rule of the class
// whose pattern may match a path beneath it; and, for writes, the .git
// guard (an extraction can write DIR/.git/config) and the policy file,
// each an ask, since what lands there cannot be known in advance.
func (p *Policy) treeFact(c Class, kind FactKind, dir string) Fact {
	f := p.pathFact(c, kind, dir)
	if f.Decision == Deny {
		return f
	}
	clean, outside := p.normalize(dir)
	shown := strings.TrimSuffix(clean, "/") + "/**"
	f.Value = shown
	for _, r := range p.rules {
		if r.class != c || r.decision == Allow || r.decision <= f.Decision {
			continue
		}
		for _, pat := range r.paths {
			if mayMatchBeneath(pat, clean) {
				f.Decision, f.Rule = r.decision, r.id
				f.Reason = fmt.Sprintf("the command may %s anything beneath %s, which %s", verb(kind), clean, r.explain(pat))
				break
			}
		}
	}
	if kind == FactWrite && f.Decision < Ask {
		if what := p.guardedBeneath(clean); what != "" {
			g := guardedDirFact(kind, shown, what)
			g.Reason = fmt.Sprintf("the command may write anything beneath %s, %s among them", clean, what)
			return g
		}
	}
	if kind != FactWrite || f.Decision >= Ask || outside {
		return f
	}
	for _, sub := range []string{".git/config", workspacePolicy} {
		in := p.pathFact(c, kind, path.Join(clean, sub))
		if in.Decision != Allow {
			f.Decision, f.Rule = Ask, RuleGuard
			f.Reason = fmt.Sprintf("the command may write anything beneath %s, %s among them (%s); "+
				"an allow rule cannot cover names the analysis cannot know", clean, path.Join(clean, sub), in.Reason)
			return f
		}
	}
	return f
}

func verb(k FactKind) string {
	if k == FactRead {
		return "read and show"
	}
	return "write"
}

// mayMatchBeneath reports whether a path pattern may match a path beneath
// the cleaned directory dir (workspace-relative, or absolute outside it):
// the pattern's leading elements match dir's, and it has more, or a `**`.
// It errs towards yes.
func mayMatchBeneath(pat, dir string) bool {
	if strings.HasPrefix(pat, "/") != strings.HasPrefix(dir, "/") {
		return false
	}
	if dir == "." {
		return true
	}
	ps := strings.Split(strings.ToLower(strings.TrimPrefix(pat, "/")), "/")
	ds := strings.Split(strings.ToLower(strings.TrimPrefix(dir, "/")), "/")
	for i, d := range ds {
		if i >= len(ps) {
			return false
		}
		if ps[i] == "**" {
			return true
		}
		if ok, err := doublestar.Match(ps[i], d); err != nil || !ok {
			return false
		}
	}
	return len(ps) > len(ds)
}
