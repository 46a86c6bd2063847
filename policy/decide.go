package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// Decide judges one call. It never fails: anything it cannot judge is
// denied, or asked where the construct is merely opaque.
func (p *Policy) Decide(a Action) Result {
	r := p.decide(a)
	if r.Decision != Allow && r.Remedy == "" && p.AllowRules(a, r) == nil {
		r.Remedy = "no --allow rule can lift this alone: a rule naming " + shorten(r.Fact, 120) +
			" cannot be written as a pattern, or the call would still be refused with it (" +
			shorten(r.Reason, 200) + "); " + altDefer + ", or " + altAllowAll
	}
	return r
}

// decide is [Policy.Decide] without the remedy that needs the allow
// rules, which [Policy.AllowRules] checks with it.
func (p *Policy) decide(a Action) Result {
	var facts []Fact
	switch a.Class {
	case ClassRead, ClassWrite:
		kind := FactRead
		if a.Class == ClassWrite {
			kind = FactWrite
		}
		if len(a.Paths) == 0 {
			facts = append(facts, guard(kind, "", "the call names no path"))
		}
		seen := map[string]bool{}
		for _, pr := range a.Paths {
			for _, name := range []string{pr.Requested, pr.Resolved} {
				if name == "" && pr.Requested != "" || seen[name] {
					continue
				}
				seen[name] = true
				facts = append(facts, p.pathFact(a.Class, kind, name))
				if name == pr.Requested && kind == FactRead {
					if lf, ok := p.linkFact(kind, name, a.Links); ok {
						facts = append(facts, lf)
					}
				}
			}
		}
	case ClassShell:
		facts = p.shellFacts(a)
	case ClassMCP:
		facts = append(facts, p.mcpFact(a.Name))
	default:
		facts = append(facts, guard(FactOpaque, a.Class.String(), "unknown tool class"))
	}
	return summarize(facts)
}

// summarize picks the strictest fact. Among facts equally strict, the
// first that a guard decided wins, else the first a rule decided, else the
// first: "denied by rule X" explains more than "denied by the default".
func summarize(facts []Fact) Result {
	r := Result{Facts: facts, Decision: Deny, Rule: RuleGuard, Reason: "nothing to decide"}
	best, bestRank := -1, -1
	for i, f := range facts {
		d := f.Decision
		if d == 0 {
			d = Deny
		}
		rank := int(d)*4 + sourceRank(f.Rule)
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	if best >= 0 {
		f := facts[best]
		r.Decision, r.Rule, r.Fact, r.Reason = f.Decision, f.Rule, f.String(), f.Reason
		if r.Decision == 0 {
			r.Decision = Deny
		}
		r.Remedy = remedy(facts, f)
	}
	return r
}

// sourceRank orders the makers of equally strict decisions.
func sourceRank(rule string) int {
	switch {
	case rule == RuleGuard:
		return 3
	case rule == RuleOpaque, rule == RuleSession, rule == RuleDefault, strings.HasPrefix(rule, "tools."):
		return 0
	case strings.HasPrefix(rule, "shell."):
		return 1
	}
	return 2
}

func guard(kind FactKind, value, reason string) Fact {
	return Fact{Kind: kind, Value: value, Decision: Deny, Rule: RuleGuard, Reason: reason}
}

// shellFacts judges every fact of a shell command.
func (p *Policy) shellFacts(a Action) []Fact {
	dir := "."
	if a.Dir != "" {
		f := p.pathFact(ClassRead, FactRead, a.Dir)
		if f.Rule == RuleGuard {
			return []Fact{guard(FactOpaque, a.Dir, "working directory: "+f.Reason)}
		}
		dir = f.Value // cleaned, workspace-relative when inside
	}
	var facts []Fact
	raw := analyzeIn(a.Command, dir, a.Env, p.within)
	// A command a rule denies needs no judging of the files its options
	// name: the rule's reason says more than a guard's.
	commands := make(map[int]Fact, len(raw))
	denied := map[int]bool{}
	plain := map[int]bool{}
	for i, rf := range raw {
		if rf.kind == FactCommand {
			f := p.commandFact(rf, raw)
			commands[i] = f
			denied[rf.owner] = denied[rf.owner] || f.Decision == Deny && f.Rule != RuleGuard
			plain[rf.owner] = plain[rf.owner] || f.Rule == RulePlain
		}
	}
	for i, rf := range raw {
		switch rf.kind {
		case FactCommand:
			facts = append(facts, commands[i])
		case FactBackground:
			facts = append(facts, p.backgroundFact(rf.value))
		case FactOpaque:
			facts = append(facts, p.opaqueFact(rf.value))
		case FactRead, FactWrite:
			if !rf.redirect && denied[rf.owner] || rf.listing && !plain[rf.owner] {
				continue
			}
			facts = append(facts, p.fileFacts(rf, a)...)
		}
	}
	return facts
}

// fileFacts judges one file a shell command reads or writes, through a
// redirect or as an operand: the file itself, a link to it, and the
// path it resolves to.
func (p *Policy) fileFacts(rf rawFact, a Action) []Fact {
	class := ClassRead
	if rf.kind == FactWrite {
		class = ClassWrite
	}
	if p.shell.Redirects == RedirectDeny && rf.redirect {
		return []Fact{{Kind: rf.kind, Value: rf.path, Decision: Deny,
			Rule: "shell.redirects", Reason: "the policy allows no file redirects"}}
	}
	var facts []Fact
	switch {
	case rf.glob:
		return []Fact{p.globReadFact(rf.path, a.Files)}
	case rf.tree && rf.kind == FactRead && rf.split:
		facts = append(facts, p.splitReadFact(rf.path, rf.filter, a.Files))
	case rf.tree && rf.kind == FactRead:
		facts = append(facts, p.treeReadFact(rf.path, rf.filter, a.Files))
	case rf.tree && rf.deletes:
		facts = append(facts, p.removalFact(rf.path, a.Files))
	case rf.tree:
		facts = append(facts, p.treeFact(class, rf.kind, rf.path))
	default:
		facts = append(facts, p.pathFact(class, rf.kind, rf.path))
		if lf, ok := p.linkFact(rf.kind, rf.path, a.Links); ok {
			facts = append(facts, lf)
		}
	}
	if a.Resolve == nil {
		return facts
	}
	resolved, err := a.Resolve(rf.path)
	switch {
	case err != nil:
		what := "redirect target: "
		if !rf.redirect {
			what = "a file the command names: "
		}
		facts = append(facts, guard(rf.kind, rf.path, what+err.Error()))
	case resolved != "" && resolved != rf.path && rf.tree && rf.kind == FactRead:
		facts = append(facts, p.treeReadFact(resolved, rf.filter, a.Files))
	case resolved != "" && resolved != rf.path && rf.tree:
		facts = append(facts, p.treeFact(class, rf.kind, resolved))
	case resolved != "" && resolved != rf.path:
		facts = append(facts, p.pathFact(class, rf.kind, resolved))
	}
	return facts
}

// commandFact judges one simple command: the strictest matching rule,
// else the shell fallback. Deny rules also see the command lines that
// wrappers in it would run. An allow rule whose final `*` stands for an
// option that runs another program (`go test *` for `go test -exec x`)
// counts as ask, unless another allow rule matches without that.
func (p *Policy) commandFact(rf rawFact, raw []rawFact) Fact {
	f := Fact{Kind: FactCommand, Value: rf.value, exact: rf.exact, Plain: rf.plain}
	var tainted Fact
	for _, r := range p.rules {
		if r.class != ClassShell || (f.Decision != 0 && r.decision <= f.Decision) {
			continue
		}
		cp, via, ok := r.matchArgv(rf.argv, rf.inner)
		if !ok {
			continue
		}
		if opt, hit := cp.tailExec(rf.execs); hit && r.decision == Allow {
			if tainted.Rule == "" {
				tainted = Fact{Decision: Ask, Rule: r.id, Reason: fmt.Sprintf(
					"matches %q, but its final * stands for %s, which %s; only an allow rule that names the option allows it",
					cp.text, opt.name, opt.spec.why)}
			}
			continue
		}
		f.Decision, f.Rule, f.Reason = r.decision, r.id, r.explain(cp.text)
		if via != "" {
			f.Reason = fmt.Sprintf("a wrapper runs %q, which %s", shorten(via, 120), f.Reason)
		}
	}
	switch {
	case f.Decision == 0 && tainted.Rule != "":
		f.Decision, f.Rule, f.Reason = tainted.Decision, tainted.Rule, tainted.Reason
	case f.Decision == 0 && rf.plain && p.shell.PlainPrograms:
		f.Decision, f.Rule, f.Reason = Allow, RulePlain, plainReason(rf, raw)
	case f.Decision == 0:
		f.Decision, f.Rule, f.Reason = p.fallback(ClassShell, FactCommand, f.Value)
	}
	if rf.why != "" && f.Rule != RulePlain {
		f.Reason += " (" + rf.why + ")"
	}
	return f
}

// plainReason says how a plain program was judged: which of its effects
// the read and write rules judge, and from which directory.
func plainReason(rf rawFact, raw []rawFact) string {
	var effects []string
	for _, o := range raw {
		if o.owner != rf.owner || o.kind != FactRead && o.kind != FactWrite {
			continue
		}
		e := o.kind.String() + " " + o.path
		if o.tree {
			e += "/**"
		}
		if !slices.Contains(effects, e) {
			effects = append(effects, e)
		}
	}
	s := "a plain program, allowed without a shell rule; its effects are judged by the read and write rules"
	if len(effects) == 0 {
		s = "a plain program with no file effects, allowed without a shell rule"
	} else {
		s += ": " + shorten(strings.Join(effects, ", "), 300)
	}
	if rf.why != "" {
		s += " (" + rf.why + ")"
	}
	return s
}

// matchArgv returns the pattern of r that matches argv, or for deny rules
// one of the wrapped command lines (then via is that line).
func (r *rule) matchArgv(argv []word, inner [][]word) (pattern cmdPattern, via string, ok bool) {
	for _, cp := range r.commands {
		if cp.matchCommand(argv, r.decision) {
			return cp, "", true
		}
		if r.decision != Deny {
			continue
		}
		for _, in := range inner {
			if cp.matchCommand(in, Deny) {
				return cp, renderArgv(in), true
			}
		}
	}
	return cmdPattern{}, "", false
}

// shorten cuts s to at most n bytes on a rune boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// explain says which pattern of a rule matched, and why the rule exists.
func (r *rule) explain(matched string) string {
	s := fmt.Sprintf("matches %q", matched)
	if r.reason != "" {
		s += ": " + r.reason
	}
	return s
}

// fallback returns the decision, rule name and reason for a fact of class
// c that no rule matched, in plain words: "no rule allows writing
// notes.txt; the default is to ask".
func (p *Policy) fallback(c Class, kind FactKind, value string) (Decision, string, string) {
	if p.allowAll {
		return Allow, RuleAllowAll, allowAllReason
	}
	d, rule := p.defaults, RuleDefault
	if p.tools[c] != 0 {
		d, rule = p.tools[c], fmt.Sprintf(ruleToolsFmt, c)
	}
	what := "running " + shorten(value, 80)
	switch kind {
	case FactRead:
		what = "reading " + shorten(value, 80)
	case FactWrite:
		what = "writing " + shorten(value, 80)
	}
	if d == Allow {
		return d, rule, "no rule matches " + what[strings.IndexByte(what, ' ')+1:] + "; the default is to allow"
	}
	return d, rule, "no rule allows " + what + "; the default is to " + d.String()
}

// pathFact judges one path of class c.
func (p *Policy) pathFact(c Class, kind FactKind, name string) Fact {
	f := Fact{Kind: kind, Value: name, exact: true}
	if name == "" {
		return guard(kind, name, "empty path")
	}
	if err := checkText(name); err != nil {
		return guard(kind, fmt.Sprintf("%q", name), "path holds "+err.Error())
	}
	clean, outside := p.normalize(name)
	f.Value = clean
	if outside && !strings.HasPrefix(clean, "/") {
		return guard(kind, clean, "the path leaves the workspace")
	}
	if kind == FactWrite {
		if what := p.guardedWrite(clean); what != "" {
			return guard(kind, clean, what+" cannot be written")
		}
		if what := p.guardedBeneath(clean); what != "" && clean != "." {
			return guardedDirFact(kind, clean, what)
		}
	}
	gitDir := kind == FactWrite && inGitDir(clean)
	var unnamed Fact // gitDir: the first allow whose pattern does not name .git
	for _, r := range p.rules {
		if r.class != c || (f.Decision != 0 && r.decision <= f.Decision) {
			continue
		}
		for _, pat := range r.paths {
			if !matchPath(pat, clean, r.decision) {
				continue
			}
			if gitDir && r.decision == Allow && !inGitDir(pat) {
				if unnamed.Rule == "" {
					unnamed.Rule, unnamed.Reason = r.id, r.explain(pat)
				}
				continue
			}
			f.Decision, f.Rule, f.Reason = r.decision, r.id, r.explain(pat)
			break
		}
	}
	if f.Decision != 0 {
		return f
	}
	if outside && !p.allowAll {
		return guard(kind, clean, "the path is outside the workspace and no absolute allow rule names it")
	}
	if unnamed.Rule != "" {
		f.Decision, f.Rule, f.Reason = Ask, unnamed.Rule, unnamed.Reason+gitDirReason
		return f
	}
	f.Decision, f.Rule, f.Reason = p.fallback(c, kind, clean)
	if gitDir && f.Decision == Allow {
		f.Decision, f.Reason = Ask, f.Reason+gitDirReason
		if p.allowAll { // a guard --allow-all keeps
			f.Rule, f.Reason = RuleGuard, "--allow-all keeps writes in a .git directory, whose config and hooks name programs that git runs"
		}
	}
	return f
}

// gitDirReason explains why an allow does not cover a write in .git.
const gitDirReason = ", but the path is in a .git directory, whose config and hooks name programs that git runs; " +
	"only an allow rule whose pattern names .git allows it"

// inGitDir reports whether a cleaned path, or a path pattern, has a .git
// element: a repository's .git directory or file, or a file in it. Its
// config can make an allowed `git diff` or `git status` run any program
// (diff.external, filter drivers, core.fsmonitor), so an allow rule must
// name .git to cover it.
func inGitDir(p string) bool {
	return slices.ContainsFunc(strings.Split(p, "/"), func(s string) bool { return strings.EqualFold(s, ".git") })
}

// normalize cleans a path and makes it workspace-relative when it lies in
// the bound workspace. outside reports a path outside the workspace; such
// a path is returned absolute when the workspace root is known.
func (p *Policy) normalize(name string) (clean string, outside bool) {
	clean = path.Clean(name)
	if strings.HasPrefix(clean, "/") {
		for _, root := range p.roots {
			if clean == root {
				return ".", false
			}
			if rel, ok := strings.CutPrefix(clean, strings.TrimSuffix(root, "/")+"/"); ok {
				return rel, false
			}
		}
		return clean, true
	}
	if clean == ".." || strings.HasPrefix(clean, "../") {
		if len(p.roots) > 0 {
			return path.Join(p.roots[len(p.roots)-1], clean), true
		}
		return clean, true
	}
	return clean, false
}

// workspacePolicy is the workspace policy file, always protected from
// writes so the model cannot widen its own permissions for a later run.
const workspacePolicy = ".rubichan/policy.toml"

// protected reports whether a cleaned path is the policy file.
func (p *Policy) protected(clean string) bool {
	if strings.EqualFold(clean, workspacePolicy) {
		return true
	}
	if p.file == "" {
		return false
	}
	own, _ := p.normalize(filepath.ToSlash(p.file))
	return strings.EqualFold(clean, own)
}
