package run

import (
	"context"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// Transitional adapters (issue 31, step 2c): the loop calls its caller
// through the seams of [agent] (Hooks, Asker), while the verdict type and
// the [[hooks]] runner are still run's own. Step 2f makes the runner an
// [agent.Hooks] itself and step 3a makes [verdict] an [agent.Verdict];
// the adapters then go.

// hookSeam calls the [[hooks]] runner through [agent.Hooks].
type hookSeam struct{ r *hookRunner }

// asHooks returns r as the loop's hooks; nil when there are none, so that
// the loop skips the work done only for hooks.
func asHooks(r *hookRunner) agent.Hooks {
	if r == nil {
		return nil
	}
	return hookSeam{r}
}

// BeforeTool runs the before_tool hooks (see [hookRunner.before]).
func (h hookSeam) BeforeTool(ctx context.Context, turn int, call agent.ToolCall, from int) agent.HookOutcome {
	o := h.r.before(ctx, turn, call.Name, call.ID, call.Input, from)
	return agent.HookOutcome{Decision: agent.HookDecision(o.decision), Hook: o.hook, Reason: o.reason, Input: o.input, Next: o.next}
}

// AfterTool runs the after_tool hooks (see [hookRunner.after]).
func (h hookSeam) AfterTool(ctx context.Context, turn int, call agent.ToolCall, res toolkit.Result) toolkit.Result {
	return h.r.after(ctx, turn, call.Name, call.ID, call.Input, res)
}

// Stop runs the stop hooks (see [hookRunner.stop]).
func (h hookSeam) Stop(ctx context.Context, turn int) string { return h.r.stop(ctx, turn) }

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
