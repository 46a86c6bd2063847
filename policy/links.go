package policy

import "fmt"

// Hard links. A file with more than one link is one file under several
// names: a hard link made by an allowed `tar -x` or `cp -l` can give
// .env a second name the read rules allow, or .git/config one the write
// rules allow. The policy cannot tell which names a file has, so reading
// a multiply-linked file while any read rule denies or asks, and writing
// one in place (a redirect, tee, dd) at all (the .git guard is always in
// play), is an ask, with a message that says why. Writes that replace the
// file (the write and edit tools rename a new file into place) do not
// reach the other names.

// GuardsReads reports whether any read rule denies or asks: then a file
// with more than one hard link is not read without asking, and grep should
// leave such files out (another name of one may be a denied file).
func (p *Policy) GuardsReads() bool {
	for _, r := range p.rules {
		if r.class == ClassRead && r.decision != Allow && len(r.paths) > 0 {
			return true
		}
	}
	return false
}

// linkFact returns the fact for a path of kind read or write that has
// more than one hard link, and whether there is one.
func (p *Policy) linkFact(kind FactKind, name string, links func(string) int) (Fact, bool) {
	if links == nil || kind == FactRead && !p.GuardsReads() {
		return Fact{}, false
	}
	n := links(name)
	if n <= 1 {
		return Fact{}, false
	}
	what, why := "reading", "one of them may be a file the read rules deny"
	if kind == FactWrite {
		what, why = "writing in place", "one of them may be in .git or a file the write rules deny"
	}
	return Fact{Kind: kind, Value: name, Decision: Ask, Rule: RuleGuard, Reason: fmt.Sprintf(
		"the file has %d hard links, other names of the same file; %s it reaches them all, and %s", n, what, why)}, true
}
