package harness

import (
	"encoding/json"
	"os"
	"slices"
	"strings"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/toolkit"
)

// The harness's half of deferral (issue 31, steps 3a and 3c): the engine defers
// and answers the calls ([agent.Approval]); the session's pending calls,
// the facts the policy asked about and the diff of a pending write are
// the harness's.

// AskedFacts lists the facts of an "ask" verdict that need approval, as
// "kind: value", once each, in the policy's order; a verdict without
// them (none is known) is its own fact. The policy's result rides in the
// verdict's Detail.
func AskedFacts(v agent.Verdict) []session.PendingFact {
	var out []session.PendingFact
	r, _ := v.Detail.(policy.Result)
	for _, f := range r.Facts {
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

// PendingFacts is [AskedFacts] as the engine's [agent.Options.AskedFacts].
func PendingFacts(v agent.Verdict) []agent.PendingFact {
	asked := AskedFacts(v)
	out := make([]agent.PendingFact, len(asked))
	for i, f := range asked {
		out[i] = agent.PendingFact(f)
	}
	return out
}

// applyAnswer is [agent.Approval.Apply] with the facts the policy asked
// about: the verdict on a call once the person's answer is taken into
// account.
func applyAnswer(a agent.Approval, v agent.Verdict) agent.Verdict { return a.Apply(v, PendingFacts(v)) }

// PreviewDiff returns the diff a write or edit call would make to the
// file it names, as it is now; "" for other calls or when it cannot tell.
func PreviewDiff(call llm.Block, eff toolkit.Effects) string {
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
