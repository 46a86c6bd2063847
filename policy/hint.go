package policy

import (
	"slices"
	"strings"
)

// AllowRules returns the narrowest command-line allow rules, written
// CLASS:PATTERN for --allow, that would let a refused call through: one
// per refused fact, each naming exactly that path or that command. It
// returns nil when no --allow can help: the call is allowed already, or a
// deny rule, a guard or an opaque construct refused it (deny wins, and
// nothing allows what the analysis cannot read). The rules are checked:
// with them added, the call is allowed.
func (p *Policy) AllowRules(a Action, r Result) []string {
	if r.Decision == Allow {
		return nil
	}
	var specs []string
	for _, f := range r.Facts {
		if f.Decision == Allow {
			continue
		}
		spec := allowSpec(f)
		if spec == "" {
			return nil
		}
		if !slices.Contains(specs, spec) {
			specs = append(specs, spec)
		}
	}
	q, err := p.WithRules(specs, nil)
	if err != nil || len(specs) == 0 || q.decide(a).Decision != Allow {
		return nil
	}
	return specs
}

// allowSpec is the --allow rule for one refused fact, or "" when an allow
// rule cannot change its decision.
func allowSpec(f Fact) string {
	switch {
	case f.Decision == Deny && !fallbackRule(f.Rule):
		return "" // a deny rule or a guard: deny wins
	case f.Rule == RuleOpaque, f.Rule == RuleGuard, strings.HasPrefix(f.Rule, "shell."):
		return ""
	}
	switch f.Kind {
	case FactMCP:
		return ClassMCP.String() + ":" + f.Value
	case FactCommand:
		return ClassShell.String() + ":" + f.Value
	case FactRead, FactWrite:
		if strings.ContainsAny(f.Value, "*?[]{}\\") || strings.HasPrefix(f.Value, "/") {
			return "" // a pattern would name more than this path
		}
		class := ClassRead
		if f.Kind == FactWrite {
			class = ClassWrite
		}
		return class.String() + ":" + f.Value
	}
	return ""
}

// fallbackRule reports whether a fact was decided by no rule.
func fallbackRule(rule string) bool {
	return rule == RuleDefault || strings.HasPrefix(rule, "tools.")
}
