package policy

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Session is a policy plus the answers a person gave during a line-mode
// session: an exact fact (this exact argv, this exact path) whose "ask"
// becomes "allow" (an approval) or "deny" (a denial) for the rest of the
// session. An answer never overrides a deny and never applies to an opaque
// construct or to a command whose words the analysis could not read
// exactly. A Session is safe for concurrent use.
type Session struct {
	policy   *Policy
	mu       sync.Mutex
	approved map[string]bool
	denied   map[string]bool
	order    []SessionRule // the answers, in the order they were given
}

// SessionRule is one answer a person gave for the rest of a session.
type SessionRule struct {
	Kind     FactKind
	Value    string
	Decision Decision // Allow or Deny
}

// String renders the answer as /policy lists it: "allow command: make test".
func (r SessionRule) String() string {
	return r.Decision.String() + " " + r.Kind.String() + ": " + r.Value
}

// NewSession starts a session with no approvals.
func (p *Policy) NewSession() *Session {
	return &Session{policy: p, approved: map[string]bool{}, denied: map[string]bool{}}
}

// Rules lists the session's answers in the order they were given.
func (s *Session) Rules() []SessionRule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SessionRule(nil), s.order...)
}

// Policy returns the session's policy.
func (s *Session) Policy() *Policy { return s.policy }

// ErrNotApprovable is returned by [Session.Approve] for a result that an
// approval cannot cover.
var ErrNotApprovable = errors.New("policy: cannot approve")

func factKey(f Fact) string { return f.Kind.String() + "\x00" + f.Value }

// Approve records every "ask" fact of r as approved for the rest of the
// session. It refuses, approving nothing, when r is a deny or holds an ask
// fact that cannot be approved (an opaque construct, an inexact command).
func (s *Session) Approve(r Result) error { return s.answer(r, Allow) }

// DenyAlways records every "ask" fact of r as denied for the rest of the
// session: a later call with the same fact is denied without asking. It
// refuses, recording nothing, where [Session.Approve] does.
func (s *Session) DenyAlways(r Result) error { return s.answer(r, Deny) }

// Approvable reports whether r can be approved or denied for the session:
// it needs approval and every fact that does is exact.
func Approvable(r Result) bool {
	_, err := askFacts(r)
	return err == nil && r.Decision == Ask
}

// SessionFacts lists what an answer "always" to r would record with
// [Session.Approve], or "deny always" with [Session.DenyAlways]: each fact
// of r that needs approval, once, in order. A compound command gives one
// fact a part, each then answered on its own: approving `make && make
// test` also allows a later `make` alone. It is nil when r cannot be
// answered for the session (see [Approvable]).
func SessionFacts(r Result) []Fact {
	facts, err := askFacts(r)
	if err != nil || r.Decision != Ask {
		return nil
	}
	return facts
}

func askFacts(r Result) ([]Fact, error) {
	if r.Decision == Deny {
		return nil, fmt.Errorf("%w: the call is denied (%s)", ErrNotApprovable, r.Fact)
	}
	var facts []Fact
	seen := map[string]bool{}
	for _, f := range r.Facts {
		if f.Decision != Ask {
			continue
		}
		if !f.exact || f.Kind == FactOpaque {
			return nil, fmt.Errorf("%w: %s is not exact", ErrNotApprovable, f)
		}
		if k := factKey(f); !seen[k] {
			seen[k] = true
			facts = append(facts, f)
		}
	}
	return facts, nil
}

func (s *Session) answer(r Result, d Decision) error {
	facts, err := askFacts(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range facts {
		k := factKey(f)
		if s.approved[k] || s.denied[k] {
			continue
		}
		if d == Allow {
			s.approved[k] = true
		} else {
			s.denied[k] = true
		}
		s.order = append(s.order, SessionRule{Kind: f.Kind, Value: f.Value, Decision: d})
	}
	return nil
}

// Decide is [Policy.Decide] with the session's approvals and denials
// applied to the facts whose decision is ask.
func (s *Session) Decide(a Action) Result {
	r := s.policy.Decide(a)
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	for i, f := range r.Facts {
		if f.Decision != Ask || !f.exact || f.Kind == FactOpaque {
			continue
		}
		switch k := factKey(f); {
		case s.denied[k]:
			r.Facts[i].Decision, r.Facts[i].Rule = Deny, RuleSessionDeny
			r.Facts[i].Reason = "denied earlier in this session"
			changed = true
		case s.approved[k]:
			r.Facts[i].Decision, r.Facts[i].Rule = Allow, RuleSession
			r.Facts[i].Reason = "approved earlier in this session"
			changed = true
		}
	}
	if !changed {
		return r
	}
	return summarize(r.Facts)
}

// ReadFilter is [Policy.ReadFilter] with the session's approvals: a file
// passes when the read rules allow it, or when its read is "ask" and a
// person approved reading exactly that path earlier in the session. An
// approved search root does not approve the files under it.
func (s *Session) ReadFilter() func(path string) bool {
	return func(name string) bool {
		f := s.policy.pathFact(ClassRead, FactRead, name)
		if f.Decision == Allow {
			return true
		}
		if f.Decision != Ask || !f.exact {
			return false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.approved[factKey(f)]
	}
}

// Message is the tool result the model gets when the call is denied (or an
// "ask" is refused with nobody to answer): what was refused, by which rule,
// why, and not to retry variants.
func (r Result) Message() string {
	var b strings.Builder
	verb := "denied"
	if r.Decision == Ask {
		verb = "refused (it needs approval and nobody can approve it)"
	}
	fmt.Fprintf(&b, "Policy %s this call: %s — rule %q", verb, r.Fact, r.Rule)
	if r.Reason != "" {
		fmt.Fprintf(&b, ": %s", r.Reason)
	}
	b.WriteString(".")
	if r.Remedy != "" {
		fmt.Fprintf(&b, " %s%s.", strings.ToUpper(r.Remedy[:1]), r.Remedy[1:])
	}
	b.WriteString("\nDo not retry variants of this command; use another approach or stop.")
	return b.String()
}

// RuleLines describes the policy's rules, one line each in the order they
// are checked — "allow shell no-net: curl *" — for line mode's /policy.
func (p *Policy) RuleLines() []string {
	var out []string
	for _, r := range p.rules {
		pats := r.paths
		if r.class == ClassShell {
			pats = nil
			for _, c := range r.commands {
				pats = append(pats, c.text)
			}
		}
		line := fmt.Sprintf("%s %s %s: %s", r.decision, r.class, r.id, strings.Join(pats, ", "))
		if r.reason != "" {
			line += " (" + r.reason + ")"
		}
		out = append(out, line)
	}
	return out
}
