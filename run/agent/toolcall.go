package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/toolkit"
)

// Messages the model gets instead of a result.
const (
	notRunCut = "Not run: your response was cut off at the output token limit before this tool call was complete, " +
		"so its arguments may be incomplete. Send the call again, with smaller arguments if needed (for example, write a large file in parts)."
	notRunStopped = "Not run: the run stopped before this call (%s)."
	notRunFinal   = "Not run: the run ended with %s."
	// FinalRecorded is the result of a call to [Options.FinalTool].
	FinalRecorded = "Answer recorded."
)

// runCalls answers every tool call of one assistant message, in order, with
// exactly one result each. A call that cannot run (cut off, unknown tool,
// malformed arguments, denied) gets an error result the model can act on.
// The returned error, if any, ends the run; the results are complete even
// then, so the conversation stays valid.
func (l *Agent) runCalls(ctx context.Context, calls []llm.Block, cut bool) ([]llm.Block, error) {
	results := make([]llm.Block, 0, len(calls))
	var stop error
	for i, call := range calls {
		if stop == nil {
			stop = l.stopped(ctx)
		}
		if stop == nil && l.cfg.Limits.MaxToolCalls > 0 && l.toolCalls >= l.cfg.Limits.MaxToolCalls {
			stop = l.limit(LimitMaxToolCalls, "reached --max-tool-calls %d", l.cfg.Limits.MaxToolCalls)
		}
		if stop != nil {
			results = append(results, llm.ToolResultBlock(call.ID, fmt.Sprintf(notRunStopped, stopReason(stop)), true))
			continue
		}
		if l.final != nil {
			results = append(results, llm.ToolResultBlock(call.ID, fmt.Sprintf(notRunFinal, l.final.Name), true))
			continue
		}
		if call.Name == l.cfg.FinalTool.Name && call.Name != "" {
			results = append(results, l.finalCall(call, cut))
			continue
		}
		l.toolCalls++
		prep := l.prepare(call, cut)
		info := &ToolCallInfo{ID: call.ID, Name: call.Name, Summary: prep.summary(call.Input), Input: call.Input}
		var res toolkit.Result
		_ = l.around(ctx, Op{Kind: OpToolCall, Turn: l.turns, Call: info}, func(ctx context.Context) error {
			res, stop = l.callOne(ctx, call, info, prep)
			return stop
		})
		if errors.Is(stop, errDeferred) {
			// This call and the ones after it stay open for the run that
			// resumes the session; the conversation is valid again once
			// that run answers them.
			return results, l.deferRest(calls[i+1:])
		}
		results = append(results, llm.ToolResultBlock(call.ID, res.Content, res.IsError))
		if errors.Is(stop, errRunEnded) {
			stop = l.contextError(ctx)
		}
	}
	return results, stop
}

// callOne reports, judges and runs one call, and reports its result: the
// operation an [Around] wraps. The result's content is redacted.
func (l *Agent) callOne(ctx context.Context, call llm.Block, info *ToolCallInfo, prep prepared) (toolkit.Result, error) {
	l.emit(Event{Kind: EventToolCall, Turn: l.turns, Tool: info})
	res, dur, stop := l.runCall(ctx, call, info, prep)
	if errors.Is(stop, errDeferred) {
		return res, stop
	}
	res.Content = l.cfg.Redact.Redact(res.Content)
	res.Meta.Diff = l.cfg.Redact.Redact(res.Meta.Diff)
	if res.Content == "" && !res.IsError {
		res.Content = "(no output)"
	}
	if dur.ran {
		l.emit(Event{Kind: EventToolResult, Turn: l.turns, Tool: info, Result: &ToolResultInfo{
			IsError: res.IsError, ExitCode: res.Meta.ExitCode, Duration: dur.d, Content: res.Content, Changed: res.Meta.Changed, Diff: res.Meta.Diff,
		}})
	}
	return res, stop
}

// prepared is a call decoded once: its tool and effects, or why it
// cannot run.
type prepared struct {
	tool   toolkit.Tool
	eff    toolkit.Effects
	failed string // non-empty: the error result the model gets
}

// summary is the gist of the call for the activity line and the events:
// from the decoded arguments, or for a call that does not decode, its raw
// arguments as sent (never a second, different reading of them).
func (p prepared) summary(raw []byte) string {
	if p.failed == "" {
		return p.eff.Summary
	}
	return Clip(strings.Join(strings.Fields(string(raw)), " "), 120)
}

// prepare decodes one call: its tool, and the effects of its arguments.
func (l *Agent) prepare(call llm.Block, cut bool) prepared {
	if cut {
		return prepared{failed: notRunCut}
	}
	tool := l.tools[call.Name]
	if tool == nil {
		return prepared{failed: fmt.Sprintf("Unknown tool %q. The available tools are: %s.", call.Name, strings.Join(l.toolNames(), ", "))}
	}
	if err := CheckArgs(call.Input); err != nil {
		return prepared{failed: fmt.Sprintf("Invalid arguments for %s: %v. Send the arguments as one JSON object that matches the tool's schema.", call.Name, err)}
	}
	eff, err := toolkit.SafeEffects(tool, call.Input)
	if err != nil {
		return prepared{failed: err.Error()}
	}
	return prepared{tool: tool, eff: eff}
}

// runCall judges and runs one prepared call. The span says whether the
// tool ran and for how long; a non-nil error ends the run after this call.
func (l *Agent) runCall(ctx context.Context, call llm.Block, info *ToolCallInfo, prep prepared) (toolkit.Result, timeSpan, error) {
	if prep.failed != "" {
		r := toolkit.Result{Content: prep.failed, IsError: true}
		l.emit(Event{Kind: EventToolResult, Turn: l.turns, Tool: info, Result: &ToolResultInfo{IsError: true, Content: prep.failed}})
		return r, timeSpan{}, nil
	}
	v := l.judge(call.Name, prep.eff)
	if a, ok := l.cfg.Answers[call.ID]; ok {
		v = a.Apply(v, l.askedFacts(v))
	}
	if v.Kind == VerdictAsk && l.cfg.Ask != nil {
		v = l.cfg.Ask.Ask(ctx, call, prep.eff, v)
		if err := l.stopped(ctx); err != nil {
			return l.notRun(info, fmt.Sprintf(notRunStopped, stopReason(err))), timeSpan{}, err
		}
	}
	if v.Kind == VerdictAsk && l.cfg.OnAsk.Mode == AskDefer {
		l.addPending(call, info, prep.eff, v)
		return toolkit.Result{}, timeSpan{}, errDeferred
	}
	if v.Kind != VerdictAllow {
		return l.refuse(call, info, v)
	}
	l.emit(Event{Kind: EventToolAllowed, Turn: l.turns, Tool: info, Allow: &AllowInfo{Rule: v.Rule, Fact: v.Fact, Reason: v.Reason}})
	// The tool acts on the effects the policy judged last (a hook may have
	// rewritten the arguments, which were then judged again).
	tool, input, eff, ans := l.gate(ctx, call, info, prep.tool, prep.eff)
	if ans != nil {
		return ans.res, timeSpan{}, ans.err
	}
	start := l.now()
	res, err := toolkit.SafeRunJudged(ctx, tool, input, eff)
	span := timeSpan{ran: true, d: l.now().Sub(start)}
	if err != nil {
		if ctx.Err() != nil {
			return toolkit.Result{Content: "Interrupted: the run was stopped while this call ran.", IsError: true}, span, errRunEnded
		}
		return toolkit.Result{Content: "The tool failed: " + err.Error(), IsError: true}, span,
			&ToolError{Tool: call.Name, Err: err}
	}
	if ctx.Err() != nil {
		return res, span, errRunEnded
	}
	if l.cfg.Hooks != nil {
		// The after_tool hooks get the model's copy: the run's secrets redacted.
		res.Content = l.cfg.Redact.Redact(res.Content)
		view := json.RawMessage(l.cfg.Redact.Redact(string(HookInput(input, eff))))
		res = l.cfg.Hooks.AfterTool(ctx, l.turns, ToolCall{ID: call.ID, Name: call.Name, Input: view}, res)
	}
	return res, span, nil
}

// refuse answers a call the policy did not allow: a denial, or a call
// that needs approval, which is denied or stops the run.
func (l *Agent) refuse(call llm.Block, info *ToolCallInfo, v Verdict) (toolkit.Result, timeSpan, error) {
	if v.Kind == VerdictAsk && l.cfg.OnAsk.Mode == AskAbort {
		l.denials++
		l.emit(Event{Kind: EventToolDenied, Turn: l.turns, Tool: info, Denial: &DenialInfo{Rule: v.Rule, Fact: v.Fact,
			Reason: v.Reason + "; it needs approval, and nobody can give it in a headless run", Allow: v.Allow, Ask: true, Abort: true}})
		res := l.notRun(info, fmt.Sprintf(notRunStopped, "approval needed"))
		return res, timeSpan{}, l.policyStop(StopPolicy, "%s needs approval (%s: %s) and %s", call.Name, v.Rule, Clip(v.Fact, 200), l.cfg.OnAsk.Why)
	}
	return l.deny(call, info, v)
}

// deny makes the denial result, counts it, and ends the run when the
// policy's max_denials is reached.
func (l *Agent) deny(call llm.Block, info *ToolCallInfo, v Verdict) (toolkit.Result, timeSpan, error) {
	l.denials++
	reason := v.Reason
	if v.Kind == VerdictAsk {
		reason += ", and nobody can answer in a headless run"
	}
	l.emit(Event{Kind: EventToolDenied, Turn: l.turns, Tool: info, Denial: &DenialInfo{Rule: v.Rule, Fact: v.Fact, Reason: reason, Allow: v.Allow,
		Ask: v.Kind == VerdictAsk, Remedy: v.Remedy}})
	msg := v.Message
	if msg == "" {
		msg = fmt.Sprintf("Denied by policy rule %s: %s (%s). Do not retry variants of this command; use another approach or stop.", v.Rule, v.Fact, v.Reason)
	}
	res := l.notRun(info, msg)
	if l.cfg.Limits.MaxDenials > 0 && l.denials >= l.cfg.Limits.MaxDenials {
		return res, timeSpan{}, l.policyStop(StopMaxDenials, "the policy refused %d calls (max_denials %d)", l.denials, l.cfg.Limits.MaxDenials)
	}
	return res, timeSpan{}, nil
}

// notRun is the error result of a call the policy refused, reported as
// an [EventToolResult] marked NotRun.
func (l *Agent) notRun(info *ToolCallInfo, msg string) toolkit.Result {
	l.emit(Event{Kind: EventToolResult, Turn: l.turns, Tool: info, Result: &ToolResultInfo{IsError: true, Content: msg, NotRun: true}})
	return toolkit.Result{Content: msg, IsError: true}
}

type timeSpan struct {
	ran bool
	d   time.Duration
}

func (l *Agent) toolNames() []string {
	names := make([]string, 0, len(l.tools))
	for n := range l.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// CheckArgs accepts the arguments of a tool call when they are one JSON
// object, and explains anything else.
func CheckArgs(raw json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(raw) {
			return fmt.Errorf("not valid JSON (%v)", err)
		}
		return errors.New("not a JSON object")
	}
	if obj == nil {
		return errors.New("not a JSON object")
	}
	return nil
}

// sanitize returns the assistant message as it goes back into the
// conversation: a tool call whose arguments are not a JSON object (cut off
// or malformed) keeps its id and name but gets {} as input, because the
// providers refuse invalid JSON in the history. The model learns what went
// wrong from the call's error result.
func sanitize(m llm.Message) llm.Message {
	out := llm.Message{Role: m.Role, Content: make([]llm.Block, len(m.Content))}
	copy(out.Content, m.Content)
	for i, b := range out.Content {
		if b.Kind == llm.BlockToolUse && CheckArgs(b.Input) != nil {
			out.Content[i].Input = json.RawMessage(`{}`)
		}
	}
	return out
}

// stopReason is a short phrase for why the run stopped, for "not run"
// results: the error's own message (a signal's cause says "interrupted
// by SIGINT").
func stopReason(err error) string {
	return err.Error()
}

// finalCall answers a call to the final tool: the engine's own tool, not
// judged and run by nobody. A call with arguments that are not one JSON
// object gets an error result; a good one is recorded as the answer.
func (l *Agent) finalCall(call llm.Block, cut bool) llm.Block {
	l.toolCalls++
	info := &ToolCallInfo{ID: call.ID, Name: call.Name, Summary: Clip(strings.Join(strings.Fields(string(call.Input)), " "), 120), Input: call.Input}
	l.emit(Event{Kind: EventToolCall, Turn: l.turns, Tool: info})
	res := ToolResultInfo{Content: FinalRecorded}
	switch err := CheckArgs(call.Input); {
	case cut:
		res = ToolResultInfo{IsError: true, Content: notRunCut}
	case err != nil:
		res = ToolResultInfo{IsError: true, Content: fmt.Sprintf("Invalid arguments for %s: %v. Send the answer as one JSON object that matches the tool's schema.", call.Name, err)}
	default:
		c := call
		l.final = &c
	}
	l.emit(Event{Kind: EventToolResult, Turn: l.turns, Tool: info, Result: &res})
	return llm.ToolResultBlock(call.ID, res.Content, res.IsError)
}
