package run

import (
	"context"
	"encoding/json"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/hooks"
	"github.com/rubichan/rubichan/toolkit"
)

// Transitional shims (issue 31, step 2f): the [[hooks]] runner moved to
// [hooks]; these names keep the loop's calls compiling unchanged until it
// calls the hooks through [agent.Hooks]. The last step of the split
// deletes this file.

// The hook decisions, as the hook event's Decision string reports them.
const (
	hookAllow    = string(agent.HookAllow)
	hookDeny     = string(agent.HookDeny)
	hookRewrite  = string(agent.HookRewrite)
	hookAppend   = string(agent.HookAppend)
	hookContinue = string(agent.HookContinue)
	hookFailed   = string(agent.HookFailed)
)

// hookRunner is the loop's handle on a [hooks.Runner]; a nil *hookRunner
// runs no hooks.
type hookRunner struct{ r *hooks.Runner }

// beforeOutcome is [agent.HookOutcome] with the loop's field names.
type beforeOutcome struct {
	decision string
	hook     string
	reason   string
	input    json.RawMessage
	next     int
}

// newHookRunner wraps r; nil when r is nil.
func newHookRunner(r *hooks.Runner) *hookRunner {
	if r == nil {
		return nil
	}
	return &hookRunner{r: r}
}

// runner is h's runner; nil (which runs no hooks) when h is nil.
func (h *hookRunner) runner() *hooks.Runner {
	if h == nil {
		return nil
	}
	return h.r
}

func (h *hookRunner) before(ctx context.Context, turn int, tool, id string, input json.RawMessage, from int) beforeOutcome {
	o := h.runner().BeforeTool(ctx, turn, agent.ToolCall{ID: id, Name: tool, Input: input}, from)
	return beforeOutcome{decision: string(o.Decision), hook: o.Hook, reason: o.Reason, input: o.Input, next: o.Next}
}

func (h *hookRunner) after(ctx context.Context, turn int, tool, id string, input json.RawMessage, res toolkit.Result) toolkit.Result {
	return h.runner().AfterTool(ctx, turn, agent.ToolCall{ID: id, Name: tool, Input: input}, res)
}

func (h *hookRunner) stop(ctx context.Context, turn int) string { return h.runner().Stop(ctx, turn) }

func hookToolInput(input json.RawMessage, eff toolkit.Effects) json.RawMessage {
	return hooks.ToolInput(input, eff)
}
