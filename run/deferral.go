package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/toolkit"
)

// errDeferred is what runCall returns for a call it leaves pending.
var errDeferred = errors.New("deferred for approval")

// Rules named for a person's answers to deferred calls.
const (
	ruleApproved = "--approve"
	ruleDenied   = "--deny-pending"
	// deniedByPerson is what the model is told of a call a person denied.
	deniedByPerson = "Denied by the person reviewing this run. Do not retry this call or variants of it; use another approach or stop."
)

// answer is a person's answer to one call an earlier run deferred.
type answer struct {
	Approve bool
	// Facts are the facts the person was shown and approved: the
	// approval holds for them alone.
	Facts []session.PendingFact
	// legacy: Facts is the call's one fact as [verdict.Fact] names it: a
	// call of one fact, or one from a session written before pending
	// calls listed all their facts (see [session.Pending.Asked]).
	legacy bool
}

// answerOf is the answer that approves pending call p: the facts it
// lists, or its one fact.
func answerOf(p session.Pending) answer {
	return answer{Approve: true, Facts: p.Asked(), legacy: len(p.Facts) == 0}
}

// apply returns the verdict on a call once the person's answer is taken
// into account: a denial always stands; an approval turns an "ask" into
// an allow only when every fact that needs approval now was among the
// facts shown and approved; nothing else changes.
func (a answer) apply(v verdict) verdict {
	switch {
	case !a.Approve && v.Kind != verdictDeny:
		return verdict{Kind: verdictDeny, Rule: ruleDenied, Fact: v.Fact, Reason: "denied by the person reviewing this run", Message: deniedByPerson}
	case a.Approve && v.Kind == verdictAsk && a.covers(v):
		return verdict{Kind: verdictAllow, Rule: ruleApproved, Fact: v.Fact, Reason: "approved by the person reviewing this run"}
	}
	return v
}

// covers reports whether the approval covers every fact of v that needs
// approval. An answer that knows one fact, as the policy's verdict names
// it (without "command: "), covers a call of that one fact only.
func (a answer) covers(v verdict) bool {
	asked := askedFacts(v)
	if a.legacy {
		return len(asked) == 1 && len(a.Facts) == 1 && v.Fact == a.Facts[0].Fact
	}
	for _, f := range asked {
		if !slices.ContainsFunc(a.Facts, func(g session.PendingFact) bool { return g.Fact == f.Fact }) {
			return false
		}
	}
	return true
}

// askedFacts lists the facts of an "ask" verdict that need approval, as
// "kind: value", once each, in the policy's order; a verdict without
// them (none is known) is its own fact.
func askedFacts(v verdict) []session.PendingFact {
	var out []session.PendingFact
	for _, f := range v.result.Facts {
		if f.Decision != policy.Ask {
			continue
		}
		pf := session.PendingFact{Fact: f.String(), Rule: f.Rule}
		if !slices.Contains(out, pf) {
			out = append(out, pf)
		}
	}
	if len(out) == 0 {
		out = append(out, session.PendingFact{Fact: v.Fact, Rule: v.Rule})
	}
	return out
}

// addPending records a call that needs approval as pending, with every
// fact that needs approval.
func (l *loop) addPending(call llm.Block, info *ToolCallInfo, eff toolkit.Effects, v verdict) {
	p := agent.Pending{ID: call.ID, Tool: call.Name, Fact: v.Fact, Rule: v.Rule, Input: call.Input}
	// A call of one fact is recorded as sessions always recorded it.
	if facts := askedFacts(v); len(facts) > 1 {
		for _, f := range facts {
			p.Facts = append(p.Facts, agent.PendingFact(f))
		}
	}
	if l.cfg.Preview != nil {
		p.Diff = l.cfg.Preview(call, eff)
	}
	l.pending = append(l.pending, p)
	l.emit(Event{Kind: EventToolDenied, Turn: l.turns, Tool: info, Denial: &DenialInfo{Rule: v.Rule, Fact: v.Fact, Reason: "needs approval; deferred (" + l.cfg.DeferOnAsk + ")", Pending: true}})
}

// deferRest judges the calls after the first deferred one without running
// them: those that need approval are pending too, so that one answer can
// cover them; all of them stay open for the resumed run. It returns the
// run's exit-3 error.
func (l *loop) deferRest(rest []llm.Block) error {
	for _, call := range rest {
		prep := l.prepare(call, false)
		if prep.failed != "" {
			continue
		}
		if v := l.judge(call.Name, prep.eff); v.Kind == verdictAsk {
			info := &ToolCallInfo{ID: call.ID, Name: call.Name, Summary: prep.summary(call.Input), Input: call.Input}
			l.addPending(call, info, prep.eff, v)
		}
	}
	n := len(l.pending)
	calls := "1 call needs"
	if n != 1 {
		calls = fmt.Sprintf("%d calls need", n)
	}
	return l.policyStop(agent.StopDeferred, "paused: %s approval (%s)", calls, l.cfg.DeferOnAsk)
}

// previewDiff returns the diff a write or edit call would make to the
// file it names, as it is now; "" for other calls or when it cannot tell.
func previewDiff(call llm.Block, eff toolkit.Effects) string {
	if eff.Kind != toolkit.EffectWrite || len(eff.Paths) != 1 {
		return ""
	}
	var args struct {
		Path       string  `json:"path"`
		Content    *string `json:"content"`
		OldString  string  `json:"old_string"`
		NewString  string  `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
	}
	if json.Unmarshal(call.Input, &args) != nil {
		return ""
	}
	p := eff.Paths[0]
	file := p.Resolved
	if file == "" {
		file = p.Requested
	}
	old, err := os.ReadFile(file)
	exists := err == nil
	var next string
	switch {
	case call.Name == "write" && args.Content != nil:
		next = *args.Content
	case call.Name == "edit" && exists && args.OldString != "":
		n := strings.Count(string(old), args.OldString)
		if n == 0 || (n > 1 && !args.ReplaceAll) {
			return ""
		}
		next = strings.ReplaceAll(string(old), args.OldString, args.NewString)
	default:
		return ""
	}
	oldName := args.Path
	if !exists {
		oldName = "/dev/null"
	}
	return toolkit.UnifiedDiff(oldName, args.Path, string(old), next)
}
