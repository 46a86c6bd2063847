package policy

import (
	"fmt"
	"path"
)

// ReadGrant is a folder outside the workspace that a part of the run
// makes readable for the file tools — a skill's folder — and what it is,
// which names the rule ("skill release-notes").
type ReadGrant struct {
	Dir  string // absolute, clean
	What string
}

// WithReads returns a copy of the policy with an allow rule for reading
// each grant's folder and everything beneath it, and nothing else: no
// write, no parent. The rule's id is the grant's What, so `policy check`
// and denials name it. Deny rules still win over it, the secret rules and
// --deny among them. The error is a folder that is not absolute.
func (p *Policy) WithReads(grants ...ReadGrant) (*Policy, error) {
	q := *p
	q.rules = append([]*rule(nil), p.rules...)
	for _, g := range grants {
		if !path.IsAbs(g.Dir) {
			return nil, fmt.Errorf("policy: read grant %s: %q is not an absolute folder", g.What, g.Dir)
		}
		dir := escapeGlob(path.Clean(g.Dir))
		q.rules = append(q.rules, &rule{id: g.What, class: ClassRead, decision: Allow, paths: []string{dir + "/**"},
			reason: "the folder of " + g.What + ", readable for the run"})
		q.rules = append(q.rules, secretsBeneath(p.rules, dir)...)
	}
	return &q, nil
}

// secretsBeneath are the secret-file denials (the relative patterns of
// the default-secrets rules, which match in the workspace) moved beneath
// the granted folder dir: a .env in a skill's folder stays unread.
func secretsBeneath(rules []*rule, dir string) []*rule {
	var out []*rule
	for _, r := range rules {
		if r.id != RuleSecrets || r.class != ClassRead || r.decision != Deny {
			continue
		}
		m := *r
		m.paths = nil
		for _, pat := range r.paths {
			if !path.IsAbs(pat) {
				m.paths = append(m.paths, dir+"/"+pat)
			}
		}
		out = append(out, &m)
	}
	return out
}
