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
// Consecutive calls the judge allowed as read-only run at once (see
// runBatch); any other call that runs is a barrier: the calls before it
// finish first, and it runs alone. The returned error, if any, ends the
// run; the results are complete even then, so the conversation stays
// valid.
func (l *Agent) runCalls(ctx context.Context, calls []llm.Block, cut bool) ([]llm.Block, error) {
	c := &callSet{results: make([]llm.Block, len(calls))}
	for i, call := range calls {
		if c.stop == nil {
			c.stop = l.stopped(ctx)
		}
		if c.stop == nil && l.cfg.Limits.MaxToolCalls > 0 && l.toolCalls >= l.cfg.Limits.MaxToolCalls {
			c.stop = l.limit(LimitMaxToolCalls, "reached --max-tool-calls %d", l.cfg.Limits.MaxToolCalls)
		}
		if c.stop != nil {
			l.flush(ctx, c)
			c.results[i] = llm.ToolResultBlock(call.ID, fmt.Sprintf(notRunStopped, stopReason(c.stop)), true)
			continue
		}
		if l.final != nil {
			c.results[i] = llm.ToolResultBlock(call.ID, fmt.Sprintf(notRunFinal, l.final.Name), true)
			continue
		}
		if call.Name == l.cfg.FinalTool.Name && call.Name != "" {
			c.results[i] = l.finalCall(call, cut)
			continue
		}
		l.toolCalls++
		prep := l.prepare(call, cut)
		v := l.verdict(call, prep)
		readOnly := prep.failed == "" && v.Kind == VerdictAllow && v.ReadOnly && l.parallel() > 1
		if !readOnly && prep.failed == "" && v.Kind != VerdictDeny {
			// A barrier: what was allowed before it runs first.
			if l.flush(ctx, c); c.stop != nil {
				c.results[i] = llm.ToolResultBlock(call.ID, fmt.Sprintf(notRunStopped, stopReason(c.stop)), true)
				continue
			}
		}
		info := &ToolCallInfo{ID: call.ID, Name: call.Name, Summary: prep.summary(call.Input), Input: call.Input}
		if readOnly {
			l.join(ctx, c, i, call, info, prep, v)
			continue
		}
		var err error
		_ = l.around(ctx, Op{Kind: OpToolCall, Turn: l.turns, Call: info}, func(ctx context.Context) error {
			l.emit(Event{Kind: EventToolCall, Turn: l.turns, Tool: info})
			res, dur, e := l.runCall(ctx, call, info, prep, v)
			if err = e; !errors.Is(err, errDeferred) {
				l.answer(c.results, i, call.ID, info, res, dur)
			}
			return err
		})
		if errors.Is(err, errDeferred) {
			// This call and the ones after it stay open for the run that
			// resumes the session; the conversation is valid again once
			// that run answers them.
			return c.results[:i], l.deferRest(calls[i+1:])
		}
		c.stop = l.ended(ctx, err)
	}
	l.flush(ctx, c)
	return c.results, c.stop
}

// callSet is the state of one message's calls: the results by call,
// the read-only calls admitted and not yet run, and the error that ends
// the run.
type callSet struct {
	results []llm.Block
	batch   []*runnable
	stop    error
}

// flush runs the admitted read-only calls, if any. An error of theirs
// wins over a later call's: they came first.
func (l *Agent) flush(ctx context.Context, c *callSet) {
	if len(c.batch) == 0 {
		return
	}
	if err := l.runBatch(ctx, c.batch, c.results); err != nil {
		c.stop = err
	}
	c.batch = nil
}

// join admits a read-only call into the batch: its tool_call event, then
// its approval and before_tool hooks, now, in call order. Its operation
// ([Around]) starts here and ends once it is answered: here, when it is
// not admitted or must run alone (a hook rewrote its arguments), else
// when the batch has run it.
func (l *Agent) join(ctx context.Context, c *callSet, i int, call llm.Block, info *ToolCallInfo, prep prepared, v Verdict) {
	op := l.startOp(ctx, Op{Kind: OpToolCall, Turn: l.turns, Call: info})
	l.emit(Event{Kind: EventToolCall, Turn: l.turns, Tool: info})
	r, ans := l.admit(op.ctx, call, info, prep, v)
	switch {
	case ans != nil:
		l.answer(c.results, i, call.ID, info, ans.res, timeSpan{})
		c.stop = ans.err
		op.end(ans.err)
	case r.rewritten:
		if l.flush(ctx, c); c.stop != nil {
			c.results[i] = llm.ToolResultBlock(call.ID, l.notRun(r.info, fmt.Sprintf(notRunStopped, stopReason(c.stop))).Content, true)
			op.end(c.stop)
			return
		}
		res, dur, err := l.execute(op.ctx, r)
		l.answer(c.results, i, call.ID, r.info, res, dur)
		c.stop = l.ended(ctx, err)
		op.end(err)
	default:
		r.idx, r.op = i, op
		c.batch = append(c.batch, r)
	}
}

// answer records the result of call i as the model gets it (redacted,
// never empty) and reports it when the tool ran.
func (l *Agent) answer(results []llm.Block, i int, id string, info *ToolCallInfo, res toolkit.Result, dur timeSpan) {
	res.Content = l.cfg.Redact.Redact(res.Content)
	res.Meta.Diff = l.cfg.Redact.Redact(res.Meta.Diff)
	if res.Content == "" && !res.IsError {
		res.Content = "(no output)"
	}
	results[i] = llm.ToolResultBlock(id, res.Content, res.IsError)
	if dur.ran {
		l.emit(Event{Kind: EventToolResult, Turn: l.turns, Tool: info, Result: &ToolResultInfo{
			IsError: res.IsError, ExitCode: res.Meta.ExitCode, Duration: dur.d, Content: res.Content, Changed: res.Meta.Changed, Diff: res.Meta.Diff,
		}})
	}
}

// ended is the error that ends the run after a call: the run's own
// reason when its context ended while the tool ran.
func (l *Agent) ended(ctx context.Context, err error) error {
	if errors.Is(err, errRunEnded) {
		return l.contextError(ctx)
	}
	return err
}

// parallel is the bound on read-only calls run at once.
func (l *Agent) parallel() int {
	if l.cfg.Parallel <= 0 {
		return DefaultParallel
	}
	return l.cfg.Parallel
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

// verdict is the judge's decision on a prepared call, with a person's
// answer to it from an earlier run; the zero Verdict for a call that
// cannot run.
func (l *Agent) verdict(call llm.Block, prep prepared) Verdict {
	if prep.failed != "" {
		return Verdict{}
	}
	v := l.judge(call.Name, prep.eff)
	if a, ok := l.cfg.Answers[call.ID]; ok {
		v = a.Apply(v, l.askedFacts(v))
	}
	return v
}

// runnable is a call the policy and the hooks let through: the tool and
// the arguments to run, and the effects the policy judged last.
type runnable struct {
	idx       int // its place in the message
	call      llm.Block
	info      *ToolCallInfo
	tool      toolkit.Tool
	input     json.RawMessage
	eff       toolkit.Effects
	rewritten bool // a before_tool hook replaced the arguments
	op        runningOp
}

// runCall judges and runs one prepared call alone. The span says whether
// the tool ran and for how long; a non-nil error ends the run after this
// call.
func (l *Agent) runCall(ctx context.Context, call llm.Block, info *ToolCallInfo, prep prepared, v Verdict) (toolkit.Result, timeSpan, error) {
	r, ans := l.admit(ctx, call, info, prep, v)
	if ans != nil {
		return ans.res, timeSpan{}, ans.err
	}
	return l.execute(ctx, r)
}

// admit takes a prepared call with its verdict through approval and the
// before_tool hooks. It returns the call to run, or the answer of a call
// that must not run (errDeferred: the call is left for a person).
func (l *Agent) admit(ctx context.Context, call llm.Block, info *ToolCallInfo, prep prepared, v Verdict) (*runnable, *callAnswer) {
	if prep.failed != "" {
		r := toolkit.Result{Content: prep.failed, IsError: true}
		l.emit(Event{Kind: EventToolResult, Turn: l.turns, Tool: info, Result: &ToolResultInfo{IsError: true, Content: prep.failed}})
		return nil, &callAnswer{res: r}
	}
	if v.Kind == VerdictAsk && l.cfg.Ask != nil {
		v = l.cfg.Ask.Ask(ctx, call, prep.eff, v)
		if err := l.stopped(ctx); err != nil {
			return nil, &callAnswer{l.notRun(info, fmt.Sprintf(notRunStopped, stopReason(err))), err}
		}
	}
	if v.Kind == VerdictAsk && l.cfg.OnAsk.Mode == AskDefer {
		l.addPending(call, info, prep.eff, v)
		return nil, &callAnswer{err: errDeferred}
	}
	if v.Kind != VerdictAllow {
		res, _, err := l.refuse(call, info, v)
		return nil, &callAnswer{res, err}
	}
	l.emit(Event{Kind: EventToolAllowed, Turn: l.turns, Tool: info, Allow: &AllowInfo{Rule: v.Rule, Fact: v.Fact, Reason: v.Reason}})
	// The tool acts on the effects the policy judged last (a hook may have
	// rewritten the arguments, which were then judged again).
	tool, input, eff, ans := l.gate(ctx, call, info, prep.tool, prep.eff)
	if ans != nil {
		return nil, ans
	}
	r := &runnable{call: call, info: info, tool: tool, input: input, eff: eff}
	r.rewritten = string(input) != string(call.Input)
	return r, nil
}

// execute runs an admitted call and then its after_tool hooks.
func (l *Agent) execute(ctx context.Context, r *runnable) (toolkit.Result, timeSpan, error) {
	res, span, err := l.runTool(ctx, r)
	if err == nil {
		res = l.afterTool(ctx, r, res)
	}
	return res, span, err
}

// runTool runs an admitted call's tool and times it. It touches no
// state of the Agent but the clock, so calls of a batch run it at once.
func (l *Agent) runTool(ctx context.Context, r *runnable) (toolkit.Result, timeSpan, error) {
	start := l.now()
	res, err := toolkit.SafeRunJudged(ctx, r.tool, r.input, r.eff)
	span := timeSpan{ran: true, d: l.now().Sub(start)}
	if err != nil {
		if ctx.Err() != nil {
			return toolkit.Result{Content: "Interrupted: the run was stopped while this call ran.", IsError: true}, span, errRunEnded
		}
		return toolkit.Result{Content: "The tool failed: " + err.Error(), IsError: true}, span,
			&ToolError{Tool: r.call.Name, Err: err}
	}
	if ctx.Err() != nil {
		return res, span, errRunEnded
	}
	return res, span, nil
}

// afterTool runs the after_tool hooks on a call's result.
func (l *Agent) afterTool(ctx context.Context, r *runnable, res toolkit.Result) toolkit.Result {
	if l.cfg.Hooks == nil {
		return res
	}
	// The after_tool hooks get the model's copy: the run's secrets redacted.
	res.Content = l.cfg.Redact.Redact(res.Content)
	view := json.RawMessage(l.cfg.Redact.Redact(string(HookInput(r.input, r.eff))))
	return l.cfg.Hooks.AfterTool(ctx, l.turns, ToolCall{ID: r.call.ID, Name: r.call.Name, Input: view}, res)
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
