package policy

// --allow-all: for a disposable environment, every call is allowed inside
// the OS sandbox, except what no policy loosens.

// allowAllReason is the reason of a fact --allow-all allowed.
const allowAllReason = "--allow-all allows every call inside the OS sandbox"

// WithAllowAll returns a copy of the policy under --allow-all: every fact
// that a rule or a fallback would ask or deny is allowed (rule
// [RuleAllowAll]), so are constructs the analysis cannot read and paths
// outside the workspace (the OS sandbox confines what a command does
// there). What stays is what the run keeps from the tools whatever the
// policy: the built-in secret denials (rule [RuleSecrets], unless the
// policy file turned them off), the guarded files (the policy file, the
// [Guarded] files, a write that may reach one beneath a directory), and
// writes in a .git directory, whose config and hooks name programs that
// git runs — and the deny rules of the policy file and --deny: a rule
// the user wrote to refuse something (`git push *`) says more about the
// run than a switch that lifts every "ask". Allow and ask rules are
// dropped. The caller starts it only inside an active sandbox, or with
// the sandbox turned off explicitly.
//
// The policy does not know about the sandbox; the runner decides whether
// the switch may be on.
func (p *Policy) WithAllowAll() *Policy {
	q := *p
	q.allowAll = true
	q.rules = nil
	for _, r := range p.rules {
		if r.id == RuleSecrets || r.decision == Deny {
			q.rules = append(q.rules, r)
		}
	}
	q.defaults = Allow
	q.tools = [ClassMCP + 1]Decision{}
	q.shell.Redirects = RedirectCheck
	return &q
}

// AllowAll reports whether the policy is under --allow-all
// ([Policy.WithAllowAll]).
func (p *Policy) AllowAll() bool { return p.allowAll }

// opaqueFact is the fact of a construct the analysis cannot fully read:
// an ask, allowed under --allow-all.
func (p *Policy) opaqueFact(value string) Fact {
	if p.allowAll {
		return Fact{Kind: FactOpaque, Value: value, Decision: Allow, Rule: RuleAllowAll,
			Reason: "the analysis cannot fully read this construct; " + allowAllReason}
	}
	return Fact{Kind: FactOpaque, Value: value, Decision: Ask, Rule: RuleOpaque,
		Reason: "the analysis cannot fully read this construct"}
}

// backgroundFact is the fact of a job started with &: the [shell]
// background decision, allowed under --allow-all.
func (p *Policy) backgroundFact(value string) Fact {
	if p.allowAll {
		return Fact{Kind: FactBackground, Value: value, Decision: Allow, Rule: RuleAllowAll,
			Reason: "a job started with & outlives the command; " + allowAllReason, exact: true}
	}
	return Fact{Kind: FactBackground, Value: value, Decision: p.shell.Background,
		Rule: "shell.background", Reason: "a job started with & outlives the command", exact: true}
}
