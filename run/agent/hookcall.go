package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/toolkit"
)

// callAnswer is the result of a call that does not run, and the error
// that ends the run, if any.
type callAnswer struct {
	res toolkit.Result
	err error
}

// gate runs the before_tool hooks on a call the policy allowed. It
// returns the tool and the arguments to run — a hook may replace them,
// and the new ones are judged by the policy again, as if the model had
// sent them — or the answer of a call that must not run.
func (l *Agent) gate(ctx context.Context, call llm.Block, info *ToolCallInfo, tool toolkit.Tool, eff toolkit.Effects) (toolkit.Tool, json.RawMessage, toolkit.Effects, *callAnswer) {
	input := call.Input
	for from := 0; ; {
		if l.cfg.Hooks == nil {
			return tool, input, eff, nil
		}
		// The hooks see the canonical arguments.
		out := l.cfg.Hooks.BeforeTool(ctx, l.turns, ToolCall{ID: call.ID, Name: call.Name, Input: HookInput(input, eff)}, from)
		switch out.Decision {
		case HookAllow:
			return tool, input, eff, nil
		case HookDeny, HookFailed:
			res, _, err := l.hookDeny(call, info, out)
			return nil, nil, eff, &callAnswer{res, err}
		}
		input, from = out.Input, out.Next
		redo := call
		redo.Input = input
		p := l.prepare(redo, false)
		if p.failed != "" {
			return nil, nil, eff, &callAnswer{res: l.notRun(info, "Not run: hook "+out.Hook+" rewrote the arguments, and they are invalid: "+p.failed)}
		}
		tool, eff = p.tool, p.eff
		rewritten := *info
		rewritten.Summary, rewritten.Input = p.summary(input), input
		info = &rewritten
		v := l.judge(call.Name, p.eff)
		if v.Kind != VerdictAllow {
			res, _, err := l.refuse(call, info, v)
			return nil, nil, eff, &callAnswer{res, err}
		}
		l.emit(Event{Kind: EventToolAllowed, Turn: l.turns, Tool: info, Allow: &AllowInfo{
			Rule: v.Rule, Fact: v.Fact, Reason: v.Reason + " (arguments rewritten by hook " + out.Hook + ")"}})
	}
}

// hookDeny answers a call a before_tool hook denied or failed on. It counts
// as a denial, like the policy's.
func (l *Agent) hookDeny(call llm.Block, info *ToolCallInfo, out HookOutcome) (toolkit.Result, timeSpan, error) {
	l.denials++
	d := &DenialInfo{Rule: "hook " + out.Hook, Fact: info.Summary, Reason: out.Reason}
	msg := fmt.Sprintf("Denied by hook %s: %s", out.Hook, out.Reason)
	if out.Decision == HookFailed {
		d.Reason = "the hook failed: " + out.Reason
		msg = fmt.Sprintf("Not run: hook %s, which must approve this call, failed (%s), so the call was denied. "+
			"This is a problem of the hook, not of your call.", out.Hook, out.Reason)
	}
	l.emit(Event{Kind: EventToolDenied, Turn: l.turns, Tool: info, Denial: d})
	res := l.notRun(info, msg)
	if l.cfg.Limits.MaxDenials > 0 && l.denials >= l.cfg.Limits.MaxDenials {
		return res, timeSpan{}, l.policyStop(StopMaxDenials, "%d calls were refused (max_denials %d)", l.denials, l.cfg.Limits.MaxDenials)
	}
	return res, timeSpan{}, nil
}
