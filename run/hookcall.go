package run

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
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
func (l *loop) gate(ctx context.Context, call llm.Block, info *ToolCallInfo, tool toolkit.Tool, eff toolkit.Effects) (toolkit.Tool, json.RawMessage, toolkit.Effects, *callAnswer) {
	input := call.Input
	for from := 0; ; {
		var view json.RawMessage // the canonical arguments, made only when hooks run
		if l.hooks != nil {
			view = hookToolInput(input, eff)
		}
		out := l.hooks.before(ctx, l.turns, call.Name, call.ID, view, from)
		switch out.decision {
		case hookAllow:
			return tool, input, eff, nil
		case hookDeny, hookFailed:
			res, _, err := l.hookDeny(call, info, out)
			return nil, nil, eff, &callAnswer{res, err}
		}
		input, from = out.input, out.next
		redo := call
		redo.Input = input
		p := l.prepare(redo, false)
		if p.failed != "" {
			return nil, nil, eff, &callAnswer{res: l.notRun(info, "Not run: hook "+out.hook+" rewrote the arguments, and they are invalid: "+p.failed)}
		}
		tool, eff = p.tool, p.eff
		rewritten := *info
		rewritten.Summary, rewritten.Input = p.summary(input), input
		info = &rewritten
		v := l.judge(call.Name, p.eff)
		if v.Kind != verdictAllow {
			res, _, err := l.refuse(call, info, v)
			return nil, nil, eff, &callAnswer{res, err}
		}
		l.emit(Event{Kind: EventToolAllowed, Turn: l.turns, Tool: info, Allow: &AllowInfo{
			Rule: v.Rule, Fact: v.Fact, Reason: v.Reason + " (arguments rewritten by hook " + out.hook + ")"}})
	}
}

// hookDeny answers a call a before_tool hook denied or failed on. It counts
// as a denial, like the policy's.
func (l *loop) hookDeny(call llm.Block, info *ToolCallInfo, out beforeOutcome) (toolkit.Result, timeSpan, error) {
	l.denials++
	d := &DenialInfo{Rule: "hook " + out.hook, Fact: info.Summary, Reason: out.reason}
	msg := fmt.Sprintf("Denied by hook %s: %s", out.hook, out.reason)
	if out.decision == hookFailed {
		d.Reason = "the hook failed: " + out.reason
		msg = fmt.Sprintf("Not run: hook %s, which must approve this call, failed (%s), so the call was denied. "+
			"This is a problem of the hook, not of your call.", out.hook, out.reason)
	}
	l.emit(Event{Kind: EventToolDenied, Turn: l.turns, Tool: info, Denial: d})
	res := l.notRun(info, msg)
	if l.cfg.MaxDenials > 0 && l.denials >= l.cfg.MaxDenials {
		return res, timeSpan{}, l.policyStop(agent.StopMaxDenials, "%d calls were refused (max_denials %d)", l.denials, l.cfg.MaxDenials)
	}
	return res, timeSpan{}, nil
}
