package agent

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/toolkit"
)

// errDeferred is what runCall returns for a call it leaves pending.
var errDeferred = errors.New("deferred for approval")

// errRunEnded tells runCalls that the run's context ended while a tool
// ran; it reports why after the tool's own line.
var errRunEnded = errors.New("run ended")

// Rules named for a person's answers to deferred calls.
const (
	ruleApproved = "--approve"
	ruleDenied   = "--deny-pending"
	// deniedByPerson is what the model is told of a call a person denied.
	deniedByPerson = "Denied by the person reviewing this run. Do not retry this call or variants of it; use another approach or stop."
)

// Apply returns the verdict on a call once the person's answer is taken
// into account: a denial always stands; an approval turns an "ask" into
// an allow only when every fact that needs approval now (asked, as
// [Options.AskedFacts] lists them) was among the facts shown and
// approved; nothing else changes.
func (a Approval) Apply(v Verdict, asked []PendingFact) Verdict {
	switch {
	case !a.Approve && v.Kind != VerdictDeny:
		return Verdict{Kind: VerdictDeny, Rule: ruleDenied, Fact: v.Fact, Reason: "denied by the person reviewing this run", Message: deniedByPerson}
	case a.Approve && v.Kind == VerdictAsk && a.covers(v, asked):
		return Verdict{Kind: VerdictAllow, Rule: ruleApproved, Fact: v.Fact, Reason: "approved by the person reviewing this run"}
	}
	return v
}

// covers reports whether the approval covers every fact of v that needs
// approval. An answer that knows one fact, as the policy's verdict names
// it (without "command: "), covers a call of that one fact only.
func (a Approval) covers(v Verdict, asked []PendingFact) bool {
	if len(asked) == 0 {
		asked = []PendingFact{{Fact: v.Fact, Rule: v.Rule}}
	}
	if a.Legacy {
		return len(asked) == 1 && len(a.Facts) == 1 && v.Fact == a.Facts[0].Fact
	}
	for _, f := range asked {
		if !slices.ContainsFunc(a.Facts, func(g PendingFact) bool { return g.Fact == f.Fact }) {
			return false
		}
	}
	return true
}

// askedFacts lists the facts of an "ask" verdict that need approval, as
// [Options.AskedFacts] finds them in the judge's record; a verdict
// without them (none is known) is its own fact.
func (l *Agent) askedFacts(v Verdict) []PendingFact {
	var out []PendingFact
	if l.cfg.AskedFacts != nil {
		out = l.cfg.AskedFacts(v)
	}
	if len(out) == 0 {
		out = []PendingFact{{Fact: v.Fact, Rule: v.Rule}}
	}
	return out
}

// addPending records a call that needs approval as pending, with every
// fact that needs approval.
func (l *Agent) addPending(call llm.Block, info *ToolCallInfo, eff toolkit.Effects, v Verdict) {
	p := Pending{ID: call.ID, Tool: call.Name, Fact: v.Fact, Rule: v.Rule, Input: call.Input}
	// A call of one fact is recorded as sessions always recorded it.
	if facts := l.askedFacts(v); len(facts) > 1 {
		p.Facts = facts
	}
	if l.cfg.Preview != nil {
		p.Diff = l.cfg.Preview(call, eff)
	}
	l.pending = append(l.pending, p)
	l.emit(Event{Kind: EventToolDenied, Turn: l.turns, Tool: info, Denial: &DenialInfo{Rule: v.Rule, Fact: v.Fact, Reason: "needs approval; deferred (" + l.cfg.OnAsk.Why + ")", Pending: true}})
}

// deferRest judges the calls after the first deferred one without running
// them: those that need approval are pending too, so that one answer can
// cover them; all of them stay open for the resumed run. It returns the
// run's exit-3 error.
func (l *Agent) deferRest(rest []llm.Block) error {
	for _, call := range rest {
		prep := l.prepare(call, false)
		if prep.failed != "" {
			continue
		}
		if v := l.judge(call.Name, prep.eff); v.Kind == VerdictAsk {
			info := &ToolCallInfo{ID: call.ID, Name: call.Name, Summary: prep.summary(call.Input), Input: call.Input}
			l.addPending(call, info, prep.eff, v)
		}
	}
	n := len(l.pending)
	calls := "1 call needs"
	if n != 1 {
		calls = fmt.Sprintf("%d calls need", n)
	}
	return l.policyStop(StopDeferred, "paused: %s approval (%s)", calls, l.cfg.OnAsk.Why)
}
