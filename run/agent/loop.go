package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/toolkit"
)

// Agent is the turn loop: model request, tool calls, results, until the
// model answers without tool calls or a limit ends the run. It owns the
// conversation and keeps it valid: every tool call gets exactly one
// result, in order, before the next request.
//
// An Agent is not safe for concurrent use. Each call of [Agent.Run] or
// [Agent.Resume] is a new run: its counters and its summary start from
// zero, while the conversation (until [Agent.Reset]), the budget and the
// compaction state go on.
type Agent struct {
	cfg    Options
	client Client
	judge  Judge
	emit   func(Event)
	now    func() time.Time

	tools     map[string]toolkit.Tool
	specs     []llm.ToolSpec
	messages  []llm.Message
	usage     llm.Usage
	response  ResponseInfo // the last request's response, for EventMessageDone
	turns     int
	toolCalls int
	denials   int
	pending   []Pending  // the calls a deferred run leaves for a person
	before    runBase    // what a chat's earlier runs spent, which this run's summary leaves out
	attempts  []int      // per verifier, the checks made in this run
	final     *llm.Block // the call to the final tool in the last message's calls

	est         *tokenEstimator
	compactions int
	noRoomNoted bool // the notice that compaction could not help was shown
}

// New returns an Agent that asks client with the options o. o.Judge and
// o.Emit are required: a nil Judge denies every call (fail closed).
func New(client Client, o Options) *Agent {
	l := &Agent{cfg: o, client: client, judge: o.Judge, emit: o.Emit, now: o.Now, tools: map[string]toolkit.Tool{}}
	if l.judge == nil {
		l.judge = denyAll
	}
	if o.Heartbeat.First > 0 && o.Emit != nil {
		// The heartbeat emits from its own goroutine.
		var mu sync.Mutex
		emit := o.Emit
		l.emit = func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			emit(ev)
		}
	}
	if l.now == nil {
		l.now = time.Now
	}
	cfg := o
	for _, t := range cfg.Tools {
		s := t.Spec()
		l.tools[s.Name] = t
		l.specs = append(l.specs, llm.ToolSpec{Name: s.Name, Description: strings.TrimSpace(s.Description), Schema: CompactJSON(s.Schema)})
	}
	if f := cfg.FinalTool; f.Name != "" {
		l.specs = append(l.specs, llm.ToolSpec{Name: f.Name, Description: strings.TrimSpace(f.Description), Schema: CompactJSON(f.Schema)})
	}
	l.est = newTokenEstimator(o.System, l.specs)
	return l
}

// ToolNames lists the names of the tools offered to the model, in the
// order they are offered.
func (l *Agent) ToolNames() []string {
	names := make([]string, len(l.specs))
	for i, s := range l.specs {
		names[i] = s.Name
	}
	return names
}

// CompactJSON drops the insignificant white space of a schema: it is
// sent on every turn. Anything that is not valid JSON is returned as is.
func CompactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// Run adds the prompt to the conversation and takes the run to its end.
// It returns nil when the model finished, or the error that ended the
// run: a [*LimitError], a [*StopError], a [*CheckError], a
// [*ProviderError], a [*ToolError], or the context's cause when the run
// was interrupted.
func (l *Agent) Run(ctx context.Context, prompt string) error {
	return l.Resume(ctx, l.messages, nil, prompt)
}

// Resume replaces the conversation with history, answers the calls an
// earlier run left open (deferred) as [Options.Answers] say, adds the
// prompt if there is one, and takes the run to its end as [Agent.Run]
// does.
func (l *Agent) Resume(ctx context.Context, history []llm.Message, open []llm.Block, prompt string) error {
	l.newRun()
	l.messages = history
	var blocks []llm.Block
	var stop error
	if len(open) > 0 {
		blocks, stop = l.runCalls(ctx, open, false)
	}
	if prompt != "" && stop == nil {
		blocks = append(blocks, llm.TextBlock(prompt))
	}
	l.addUser(blocks)
	if stop != nil {
		return stop
	}
	return l.turnLoop(ctx)
}

// add appends a message to the conversation and reports it.
func (l *Agent) add(m llm.Message) {
	l.messages = append(l.messages, m)
	l.emit(Event{Kind: EventHistory, Turn: l.turns, Message: &m})
}

// addUser adds blocks to the conversation as a user message, or to the
// last message when it is a user message (the results of calls answered
// after a resume, then the new prompt); the session records the blocks
// added, which its loader merges the same way.
func (l *Agent) addUser(blocks []llm.Block) {
	if len(blocks) == 0 {
		return
	}
	m := llm.Message{Role: llm.RoleUser, Content: blocks}
	if k := len(l.messages); k > 0 && l.messages[k-1].Role == llm.RoleUser {
		last := &l.messages[k-1]
		last.Content = append(slices.Clip(last.Content), blocks...)
		l.emit(Event{Kind: EventHistory, Turn: l.turns, Message: &m})
		return
	}
	l.add(m)
}

// turnLoop requests answers and runs their calls until the model finishes
// or the run stops.
func (l *Agent) turnLoop(ctx context.Context) error {
	for {
		if err := l.stopped(ctx); err != nil {
			return err
		}
		if l.turns >= l.cfg.Limits.MaxTurns {
			return l.limit(LimitMaxTurns, "reached --max-turns %d before the model finished", l.cfg.Limits.MaxTurns)
		}
		if err := l.cfg.Budget.BeforeRequest(); err != nil {
			return l.budgetStop(err)
		}
		if err := l.compactIfNeeded(ctx); err != nil {
			return err
		}
		l.turns++
		var msg llm.Message
		var stop llm.StopReason
		var used llm.Usage
		err := l.around(ctx, Op{Kind: OpRequest, Turn: l.turns, Model: l.cfg.Model}, func(ctx context.Context) error {
			l.emit(Event{Kind: EventTurnStart, Turn: l.turns})
			var err error
			if msg, stop, used, err = l.requestCompacting(ctx); err != nil {
				return err
			}
			l.add(sanitize(msg))
			resp := l.response
			l.emit(Event{Kind: EventMessageDone, Turn: l.turns, Text: msg.Text(), Usage: &used, Cost: l.requestCost(used), Stop: stop, Response: &resp})
			return nil
		})
		if err != nil {
			return l.requestError(ctx, err)
		}
		calls := msg.ToolUses()
		// Past a cap, a run that would go on stops; a finished answer stands.
		if err := l.cfg.Budget.AfterRequest(used); err != nil && (len(calls) > 0 || stop == llm.StopMaxTokens) {
			return l.budgetStop(err)
		}
		if len(calls) == 0 {
			if stop == llm.StopMaxTokens {
				l.emit(Event{Kind: EventNotice, Text: "the answer was cut at the output token limit; asking the model to continue"})
				l.add(llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock(cutAnswerNote)}})
				continue
			}
			done, err := l.finish(ctx, Final{Text: msg.Text(), Message: msg, Turn: l.turns})
			if done || err != nil {
				return err
			}
			continue
		}
		l.final = nil
		results, err := l.runCalls(ctx, calls, stop == llm.StopMaxTokens)
		l.addUser(results)
		if err != nil {
			return err
		}
		if f := l.final; f != nil {
			if done, err := l.finish(ctx, Final{Text: msg.Text(), Message: msg, Tool: f.Name, Input: f.Input, Turn: l.turns}); done || err != nil {
				return err
			}
		}
	}
}

// finish checks a final answer: done when the run ends with it, or
// false after sending the model back with what the checks said.
func (l *Agent) finish(ctx context.Context, final Final) (bool, error) {
	back, err := l.finalAnswer(ctx, final)
	if err != nil {
		return true, err
	}
	if back != "" {
		l.addUser([]llm.Block{llm.TextBlock(back)})
		return false, nil
	}
	return true, nil
}

// finalAnswer is the step after an answer without tool calls: the stop
// hooks, then the verifiers in order. It returns what sends the model
// back to work, or "" when the run ends with this answer; an error ends
// the run.
func (l *Agent) finalAnswer(ctx context.Context, final Final) (string, error) {
	if l.cfg.Hooks != nil {
		if back := l.cfg.Hooks.Stop(ctx, l.turns); back != "" {
			return back, nil
		}
	}
	for i, v := range l.cfg.Verifiers {
		l.attempts[i]++
		var res Verification
		err := l.around(ctx, Op{Kind: OpVerify, Turn: l.turns, Attempt: l.attempts[i]}, func(ctx context.Context) error {
			var err error
			res, err = v.Verify(ctx, l.attempts[i], final)
			return err
		})
		if err != nil {
			return "", err
		}
		if err := l.stopped(ctx); err != nil {
			return "", err
		}
		switch {
		case res.Passed:
			continue
		case res.Stop != nil:
			l.emit(Event{Kind: EventLimit, Text: res.Stop.Error()})
			return "", res.Stop
		}
		return res.Feedback, nil
	}
	return "", nil
}

// requestCompacting is request with the token estimate kept up to date;
// when the provider says the request is too long, it compacts once more,
// keeping a smaller tail, and asks again.
func (l *Agent) requestCompacting(ctx context.Context) (llm.Message, llm.StopReason, llm.Usage, error) {
	before := l.est.estimate(l.messages)
	l.est.sent()
	msg, stop, used, err := l.request(ctx)
	if err != nil && llm.IsContextLength(err) && l.compactOn() && ctx.Err() == nil {
		ok, cerr := l.compact(ctx, "context_length", before, int(retryKeepShare*float64(l.cfg.Compact.Window)))
		if cerr != nil {
			return msg, stop, used, cerr
		}
		if ok {
			l.est.sent()
			msg, stop, used, err = l.request(ctx)
		}
	}
	if err == nil {
		l.est.observe(used)
	}
	return msg, stop, used, err
}

const cutAnswerNote = "Your answer was cut off at the output token limit. Continue exactly where it stopped."

// stopped returns the reason the run must end now: its context ended.
func (l *Agent) stopped(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return l.contextError(ctx)
}

// contextError turns the end of ctx into the run's error: a timeout is a
// limit (exit 4); a signal is returned as is for the caller (exit 130/143).
func (l *Agent) contextError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, ErrTimeout) {
		return l.limit(LimitTimeout, "reached --timeout %s", l.cfg.Limits.Timeout)
	}
	return cause
}

// limit reports a limit of the given kind that ends the run and returns
// its [*LimitError].
func (l *Agent) limit(kind LimitKind, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	l.emit(Event{Kind: EventLimit, Text: msg})
	return &LimitError{Kind: kind, Err: errors.New(msg)}
}

// policyStop reports that the policy ended the run and returns its
// [*StopError].
func (l *Agent) policyStop(kind StopKind, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	l.emit(Event{Kind: EventLimit, Text: msg})
	return &StopError{Kind: kind, Msg: msg}
}

// request streams one model answer, retrying transient failures. Text is
// forwarded as it arrives; when a stream breaks after its text began, the
// retry's text is held back while it repeats what was shown and only what
// extends it is forwarded, so the sinks get one answer (see [retext]); a
// retry that departs from the shown text gets an [EventStreamCut] and its
// text whole. It returns the usage of the attempt that succeeded; what
// failed attempts reported is counted in the run's usage and budget as
// they fail, and a retry that would pass the budget is not made.
func (l *Agent) request(ctx context.Context) (llm.Message, llm.StopReason, llm.Usage, error) {
	req := llm.Request{Model: l.cfg.Model, System: l.cfg.System, Messages: l.messages, Tools: l.specs, Format: l.cfg.Format}
	l.response = ResponseInfo{}
	var rt retext
	hb := startBeat(ctx, l.cfg.Heartbeat, l.turns, l.emit)
	defer hb.stop()
	var client Client = l.client
	if hb != nil {
		client = beatClient{l.client, hb}
	}
	text := func(t string, diverged bool) {
		if diverged {
			l.emit(Event{Kind: EventStreamCut, Turn: l.turns})
		}
		if t != "" {
			l.emit(Event{Kind: EventTextDelta, Turn: l.turns, Text: t})
		}
	}
	policy := l.cfg.Retry
	policy.Retryable = retryableAfterPrint
	pf, _ := l.client.(llm.Prefiller)
	prefill := "" // the text the next attempt continues (see retext.prefill)
	c, err := Complete(ctx, client, req, CompleteOptions{Retry: policy, Clock: l.cfg.Clock,
		Prepare: func(req llm.Request) llm.Request { return withPrefill(req, prefill) },
		OnEvent: func(ev llm.Event) {
			hb.event(ev)
			switch {
			case ev.Kind == llm.EventThinking || ev.Kind == llm.EventToolUse || ev.Kind == llm.EventServerTool:
				rt.block()
			}
			switch {
			case ev.Kind == llm.EventText && ev.Text != "":
				text(rt.delta(ev.Text))
			case ev.Kind == llm.EventThinking && ev.Text != "":
				l.emit(Event{Kind: EventThinkingDelta, Turn: l.turns, Text: ev.Text})
			case ev.Kind == llm.EventStop:
				l.response = ResponseInfo{ID: ev.ResponseID, Model: ev.ResponseModel}
			}
		},
		OnAttempt: func(u llm.Usage, err error) error {
			l.usage = l.usage.Add(u)
			if err == nil {
				text(rt.done())
			}
			// Past a cap, a retry is not made; a failure that is not
			// retried keeps its own exit code.
			if err != nil {
				if berr := l.cfg.Budget.AfterFailedAttempt(u); berr != nil && policy.Retryable(err) {
					return berr
				}
			}
			return nil
		},
		OnRetry: func(n llm.RetryNotice) {
			hb.progress("")
			prefill = ""
			if p, ok := rt.prefill(); ok && pf != nil && pf.Prefills(req) {
				prefill = p
			}
			rt.retry(prefill)
			l.emit(Event{Kind: EventRetry, Turn: l.turns, Retry: &RetryInfo{Attempt: n.Attempt, Wait: n.Wait, Reason: retryReason(n.Err), Err: n.Err}})
		},
	})
	if err != nil {
		return c.Message, c.Stop, c.Usage, err
	}
	return rt.join(c.Message), c.Stop, c.Usage, nil
}

// retryableAfterPrint retries what llm.IsRetryable does and also a stream
// cut after content arrived: the loop continues the printed answer.
// A [Permanent] error (a replay that diverged from its cassette) is
// never retried.
func retryableAfterPrint(err error) bool {
	if PermanentCause(err) != nil {
		return false
	}
	if llm.IsRetryable(err) {
		return true
	}
	var ae *llm.APIError
	return errors.As(err, &ae) && ae.Partial && ae.Retryable
}

// retryReason is the short reason in a retry notice: "429 rate limit".
func retryReason(err error) string {
	var ae *llm.APIError
	if !errors.As(err, &ae) {
		return err.Error()
	}
	if ae.StatusCode != 0 {
		return fmt.Sprintf("%d %s", ae.StatusCode, ae.Kind)
	}
	if strings.HasPrefix(ae.Message, "stalled") {
		// "stream cut: stalled: no data for 5m0s"
		return ae.Kind.String() + ": " + ae.Message
	}
	return ae.Kind.String()
}

// requestError turns a failed model request into the run's error.
func (l *Agent) requestError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return l.contextError(ctx)
	}
	var be *BudgetError
	if errors.As(err, &be) {
		return l.budgetStop(err)
	}
	if p := PermanentCause(err); p != nil {
		// A replay's divergence: the run is not the recorded one, and the
		// replay's model "failed".
		return &ProviderError{Err: p, Why: ProviderPermanent}
	}
	if llm.IsContextLength(err) {
		return &ProviderError{Err: err, Why: ProviderContextLength}
	}
	return &ProviderError{Err: err, Why: ProviderFailed}
}

// Summary is the closing tally of the last run: in a chat, of this run
// only (its cost and sub-queries less what the chat spent before it).
// Its ExitCode and Verified are the caller's to fill.
func (l *Agent) Summary(start time.Time) *Summary {
	cost, known := l.cfg.Budget.Cost()
	subs, subUsage := l.cfg.Budget.SubTotals()
	cost, subs, subUsage = cost-l.before.cost, subs-l.before.subs, subUsage.Minus(l.before.subUsage)
	usage := l.usage.Add(subUsage)
	return &Summary{
		Subqueries:   subs,
		Turns:        l.turns,
		ToolCalls:    l.toolCalls,
		Denials:      l.denials,
		InputTokens:  int64(usage.InputTokens + usage.CacheCreationTokens + usage.CacheReadTokens),
		OutputTokens: int64(usage.OutputTokens),
		Elapsed:      l.now().Sub(start),
		CostUSD:      cost,
		CostKnown:    known,
		Usage:        usage,
		Pending:      l.pending,
	}
}

// budgetStop reports a budget error from [Budget] (a *BudgetError or a
// *QueriesError) as the limit that ends the run.
func (l *Agent) budgetStop(err error) error {
	l.emit(Event{Kind: EventLimit, Text: err.Error()})
	return &LimitError{Kind: LimitBudget, Err: err}
}

// requestCost is the cost of a request's usage at the price of the model
// it was made to, for [EventMessageDone]; nil when the price is unknown.
func (l *Agent) requestCost(used llm.Usage) *float64 {
	c, ok := l.cfg.Budget.RequestCost(used)
	if !ok {
		return nil
	}
	return &c
}
