package policy

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Session is a policy plus the approvals a person gave during a line-mode
// session: an exact fact (this exact argv, this exact path) whose "ask"
// becomes "allow" for the rest of the session. An approval never overrides
// a deny and never applies to an opaque construct or to a command whose
// words the analysis could not read exactly. A Session is safe for
// concurrent use.
type Session struct {
	policy   *Policy
	mu       sync.Mutex
	approved map[string]bool
}

// NewSession starts a session with no approvals.
func (p *Policy) NewSession() *Session {
	return &Session{policy: p, approved: map[string]bool{}}
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
func (s *Session) Approve(r Result) error {
	if r.Decision == Deny {
		return fmt.Errorf("%w: the call is denied (%s)", ErrNotApprovable, r.Fact)
	}
	var keys []string
	for _, f := range r.Facts {
		if f.Decision != Ask {
			continue
		}
		if !f.exact || f.Kind == FactOpaque {
			return fmt.Errorf("%w: %s is not exact", ErrNotApprovable, f)
		}
		keys = append(keys, factKey(f))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.approved[k] = true
	}
	return nil
}

// Decide is [Policy.Decide] with the session's approvals applied to the
// facts whose decision is ask.
func (s *Session) Decide(a Action) Result {
	r := s.policy.Decide(a)
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	for i, f := range r.Facts {
		if f.Decision == Ask && f.exact && f.Kind != FactOpaque && s.approved[factKey(f)] {
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
	b.WriteString(".\nDo not retry variants of this command; use another approach or stop.")
	return b.String()
}
