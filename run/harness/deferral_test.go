package harness

import (
	"slices"
	"testing"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
)

// The engine's rules and message for a person's answers (agent/deferral.go).
const (
	ruleApproved   = "--approve"
	ruleDenied     = "--deny-pending"
	deniedByPerson = "Denied by the person reviewing this run. Do not retry this call or variants of it; use another approach or stop."
)

func TestAnswerApply(t *testing.T) {
	t.Parallel()
	ask := agent.Verdict{Kind: agent.VerdictAsk, Rule: "tools.shell", Fact: "npm publish"}
	deny := agent.Verdict{Kind: agent.VerdictDeny, Rule: "--deny shell:npm *", Fact: "npm publish"}
	allow := agent.Verdict{Kind: agent.VerdictAllow, Rule: "r", Fact: "ls"}
	// touch notes.txt && rm -f victim.txt: four facts that ask.
	fact := func(k policy.FactKind, v, rule string) policy.Fact {
		return policy.Fact{Kind: k, Value: v, Decision: policy.Ask, Rule: rule}
	}
	compound := agent.Verdict{Kind: agent.VerdictAsk, Rule: "tools.write", Fact: "write: notes.txt", Detail: policy.Result{Decision: policy.Ask, Facts: []policy.Fact{
		fact(policy.FactWrite, "notes.txt", "tools.write"), fact(policy.FactCommand, "touch notes.txt", "tools.shell"),
		fact(policy.FactWrite, "victim.txt", "tools.write"), fact(policy.FactCommand, "rm -f victim.txt", "tools.shell"),
	}}}
	shown := session.Pending{Fact: compound.Fact, Rule: compound.Rule, Facts: AskedFacts(compound)}
	firstTwo := shown
	firstTwo.Facts = shown.Facts[:2]
	// The same call where this run allows the touch: only the rm asks.
	rmOnly := compound
	rmResult := compound.Detail.(policy.Result)
	rmResult.Facts = slices.Clone(rmResult.Facts)
	rmResult.Facts[0].Decision, rmResult.Facts[1].Decision = policy.Allow, policy.Allow
	rmOnly.Detail = rmResult
	old := func(f string) agent.Approval { return AnswerOf(session.Pending{Fact: f, Rule: "r"}) }
	tests := map[string]struct {
		a        agent.Approval
		v        agent.Verdict
		wantKind agent.VerdictKind
		wantRule string
	}{
		"approved, same fact":       {old("npm publish"), ask, agent.VerdictAllow, ruleApproved},
		"approved, another fact":    {old("npm test"), ask, agent.VerdictAsk, "tools.shell"},
		"approved, a deny rule":     {old("npm publish"), deny, agent.VerdictDeny, "--deny shell:npm *"},
		"approved, allowed anyway":  {old("ls"), allow, agent.VerdictAllow, "r"},
		"denied by the person":      {agent.Approval{}, ask, agent.VerdictDeny, ruleDenied},
		"denied, allowed by a rule": {agent.Approval{}, allow, agent.VerdictDeny, ruleDenied},
		"denied, and by a rule":     {agent.Approval{}, deny, agent.VerdictDeny, "--deny shell:npm *"},
		// Every fact shown and approved: the call runs.
		"compound, all facts approved": {AnswerOf(shown), compound, agent.VerdictAllow, ruleApproved},
		// Fewer facts ask now than were approved: still covered.
		"compound, fewer facts ask now": {AnswerOf(shown), rmOnly, agent.VerdictAllow, ruleApproved},
		// A fact that asks was not among those approved: not covered.
		"compound, a fact not shown": {AnswerOf(firstTwo), compound, agent.VerdictAsk, "tools.write"},
		// An older session recorded one fact of the call: it covers a
		// call of that fact alone, never the rest of a compound one.
		"compound, an older session's one fact": {old("write: notes.txt"), compound, agent.VerdictAsk, "tools.write"},
		"compound, denied by the person":        {agent.Approval{}, compound, agent.VerdictDeny, ruleDenied},
	}
	for name, tc := range tests {
		got := applyAnswer(tc.a, tc.v)
		if got.Kind != tc.wantKind || got.Rule != tc.wantRule {
			t.Errorf("%s: got %v by %q, want %v by %q", name, got.Kind, got.Rule, tc.wantKind, tc.wantRule)
		}
		if tc.wantRule == ruleDenied && got.Message != deniedByPerson {
			t.Errorf("%s: the model is told %q", name, got.Message)
		}
	}
}

// TestAskedFacts checks that a pending call records each fact that needs
// approval once, with its rule, and none that the policy allowed.
func TestAskedFacts(t *testing.T) {
	t.Parallel()
	v := agent.Verdict{Kind: agent.VerdictAsk, Rule: "tools.shell", Fact: "make", Detail: policy.Result{Decision: policy.Ask, Facts: []policy.Fact{
		{Kind: policy.FactCommand, Value: "make", Decision: policy.Ask, Rule: "tools.shell"},
		{Kind: policy.FactCommand, Value: "echo hi", Decision: policy.Allow, Rule: "r"},
		{Kind: policy.FactCommand, Value: "make", Decision: policy.Ask, Rule: "tools.shell"},
		{Kind: policy.FactWrite, Value: "out", Decision: policy.Ask, Rule: "tools.write"},
	}}}
	got := AskedFacts(v)
	want := []session.PendingFact{{Fact: "command: make", Rule: "tools.shell"}, {Fact: "write: out", Rule: "tools.write"}}
	if !slices.Equal(got, want) {
		t.Errorf("askedFacts = %v, want %v", got, want)
	}
	if got := AskedFacts(agent.Verdict{Kind: agent.VerdictAsk, Rule: "x", Fact: "f"}); !slices.Equal(got, []session.PendingFact{{Fact: "f", Rule: "x"}}) {
		t.Errorf("askedFacts of a verdict without facts = %v", got)
	}
}
