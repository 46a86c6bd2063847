package run

import (
	"context"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/hooks"
	"github.com/rubichan/rubichan/toolkit"
)

// Transitional adapters (issue 31, steps 2c and 3a): the loop calls its
// caller through the seams of [agent] (Hooks, Asker).

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
	return s.a.ask(ctx, call, eff, v)
}
