package run

import (
	"context"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/hooks"
	"github.com/rubichan/rubichan/toolkit"
)

// Transitional adapters (issue 31, step 2c): the loop calls its caller
// through the seams of [agent] (Hooks, Asker), while the verdict type is
// still run's own. Step 3a makes [verdict] an [agent.Verdict]; the
// adapters then go.

// asHooks returns r as the loop's hooks ([hooks.Runner] implements
// [agent.Hooks]); a nil interface when there are none, so that the loop
// skips the work done only for hooks.
func asHooks(r *hooks.Runner) agent.Hooks {
	if r == nil {
		return nil
	}
	return r
}

// askSeam asks on the chat's terminal through [agent.Asker].
type askSeam struct{ a *ttyAsker }

// Ask asks the person (see [ttyAsker.ask]).
func (s askSeam) Ask(ctx context.Context, call llm.Block, eff toolkit.Effects, v agent.Verdict) agent.Verdict {
	return agentVerdict(s.a.ask(ctx, call, eff, runVerdict(v)))
}

// agentVerdict is v as the seams carry it: the policy's result rides in
// Detail, back to the Asker unchanged.
func agentVerdict(v verdict) agent.Verdict {
	return agent.Verdict{Kind: agent.VerdictKind(v.Kind), Rule: v.Rule, Fact: v.Fact, Reason: v.Reason,
		Message: v.Message, Allow: v.Allow, Detail: v.result}
}

// runVerdict is the inverse of [agentVerdict]; a Detail that is not a
// policy result (an Asker's own verdict) leaves the result zero.
func runVerdict(v agent.Verdict) verdict {
	r, _ := v.Detail.(policy.Result)
	return verdict{Kind: verdictKind(v.Kind), Rule: v.Rule, Fact: v.Fact, Reason: v.Reason,
		Message: v.Message, Allow: v.Allow, result: r}
}
