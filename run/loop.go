package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// streamer is what the loop needs of a model client.
type streamer interface {
	Stream(ctx context.Context, req llm.Request) (*llm.Stream, error)
}

// loopConfig are the fixed inputs of one run of the turn loop.
type loopConfig struct {
	Model        string
	System       string
	Tools        []toolkit.Tool
	MaxTurns     int // model requests; at least 1
	MaxToolCalls int // 0: none
	MaxDenials   int // 0: none
	// AbortOnAsk, when set, says what makes a call that needs approval
	// stop the run (exit 3), for the message: "--on-ask is abort".
	// Empty: such a call is denied and the model told.
	AbortOnAsk string
	// DeferOnAsk, when set, says what makes a call that needs approval
	// pause the run (exit 3) with the call pending, for a later run that
	// resumes the session: "--on-ask is defer".
	DeferOnAsk string
	// Ask, when set, asks a person about a call the policy marks "ask"
	// (line mode with a terminal) and returns the verdict to act on:
	// allowed, or denied with the message the model gets. nil: such a
	// call resolves as AbortOnAsk, DeferOnAsk or a denial say.
	Ask func(ctx context.Context, call llm.Block, eff toolkit.Effects, v verdict) verdict
	// Answers are a person's answers to calls an earlier run deferred,
	// by call id (--approve, --deny-pending).
	Answers map[string]answer
	// Preview returns the diff a write or edit call would make, for the
	// pending calls of a deferred run; nil: none.
	Preview func(call llm.Block, eff toolkit.Effects) string
	Timeout time.Duration // for the limit message; the caller sets the deadline
	Budget  *Budget       // token and cost caps; nil: none
	Retry   llm.RetryPolicy
	Clock   llm.Clock // nil: the system clock
	// Redact hides the run's secrets in tool results before the model,
	// the sinks or the session see them: a command may print the key
	// (from a file, /proc, a misconfigured tool). nil: no change.
	Redact *redactor
	// Compact says when the conversation is compacted; a zero Window:
	// never, and a context-length error ends the run (exit 5).
	Compact compactConfig
}

// loop is one run of the turn loop: model request, tool calls, results,
// until the model answers without tool calls or a limit ends the run. It
// owns the conversation and keeps it valid: every tool call gets exactly
// one result, in order, before the next request.
//
// A loop is not safe for concurrent use and runs once.
type loop struct {
	cfg    loopConfig
	client streamer
	judge  judge
	hooks  *hookRunner // nil: no hooks
	emit   func(Event)
	now    func() time.Time

	tools     map[string]toolkit.Tool
	specs     []llm.ToolSpec
	messages  []llm.Message
	usage     llm.Usage
	turns     int
	toolCalls int
	denials   int
	pending   []agent.Pending // the calls a deferred run leaves for a person
	before    runBase         // what a chat's earlier runs spent, which this run's summary leaves out

	est         *tokenEstimator
	compactions int
	noRoomNoted bool // the notice that compaction could not help was shown
}

func newLoop(cfg loopConfig, client streamer, j judge, emit func(Event)) *loop {
	l := &loop{cfg: cfg, client: client, judge: j, emit: emit, now: time.Now, tools: map[string]toolkit.Tool{}}
	for _, t := range cfg.Tools {
		s := t.Spec()
		l.tools[s.Name] = t
		l.specs = append(l.specs, llm.ToolSpec{Name: s.Name, Description: strings.TrimSpace(s.Description), Schema: compactJSON(s.Schema)})
	}
	l.est = newTokenEstimator(cfg.System, l.specs)
	return l
}

// toolSpecNames lists the names of the tools offered to the model, in the
// order they are offered.
func (l *loop) toolSpecNames() []string {
	names := make([]string, len(l.specs))
	for i, s := range l.specs {
		names[i] = s.Name
	}
	return names
}

// compactJSON drops the insignificant white space of a schema: it is sent
// on every turn.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// run takes the first user message to the end of the run. It returns nil
// when the model finished, or an error carrying the exit code: a limit (4),
// the policy (3), the provider (5), a tool's infrastructure (1), or the
// context's cause when the run was interrupted.
func (l *loop) run(ctx context.Context, first string) error {
	return l.resume(ctx, nil, nil, first)
}

// resume restores the conversation of a session, answers the calls an
// earlier run left open (deferred), adds the prompt if there is one, and
// takes the run to its end as [loop.run] does.
func (l *loop) resume(ctx context.Context, history []llm.Message, open []llm.Block, prompt string) error {
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
func (l *loop) add(m llm.Message) {
	l.messages = append(l.messages, m)
	l.emit(Event{Kind: EventHistory, Turn: l.turns, Message: &m})
}

// addUser adds blocks to the conversation as a user message, or to the
// last message when it is a user message (the results of calls answered
// after a resume, then the new prompt); the session records the blocks
// added, which its loader merges the same way.
func (l *loop) addUser(blocks []llm.Block) {
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
func (l *loop) turnLoop(ctx context.Context) error {
	for {
		if err := l.stopped(ctx); err != nil {
			return err
		}
		if l.turns >= l.cfg.MaxTurns {
			return l.limit(agent.LimitMaxTurns, "reached --max-turns %d before the model finished", l.cfg.MaxTurns)
		}
		if err := l.cfg.Budget.BeforeRequest(); err != nil {
			return l.budgetStop(err)
		}
		if err := l.compactIfNeeded(ctx); err != nil {
			return err
		}
		l.turns++
		l.emit(Event{Kind: EventTurnStart, Turn: l.turns})
		msg, stop, used, err := l.requestCompacting(ctx)
		if err != nil {
			return l.requestError(ctx, err)
		}
		calls := msg.ToolUses()
		l.add(sanitize(msg))
		l.emit(Event{Kind: EventMessageDone, Turn: l.turns, Text: msg.Text(), Usage: &used, Cost: l.requestCost(used), Stop: stop})
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
			if msg := l.hooks.stop(ctx, l.turns); msg != "" {
				l.addUser([]llm.Block{llm.TextBlock(msg)})
				continue
			}
			return nil
		}
		results, err := l.runCalls(ctx, calls, stop == llm.StopMaxTokens)
		l.addUser(results)
		if err != nil {
			return err
		}
	}
}

// requestCompacting is request with the token estimate kept up to date;
// when the provider says the request is too long, it compacts once more,
// keeping a smaller tail, and asks again.
func (l *loop) requestCompacting(ctx context.Context) (llm.Message, llm.StopReason, llm.Usage, error) {
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
func (l *loop) stopped(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return l.contextError(ctx)
}

// contextError turns the end of ctx into the run's error: a timeout is a
// limit (exit 4); a signal is returned as is for [Main] (exit 130/143).
func (l *loop) contextError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, agent.ErrTimeout) {
		return l.limit(agent.LimitTimeout, "reached --timeout %s", l.cfg.Timeout)
	}
	return cause
}

// limit reports a limit of the given kind that ends the run and returns
// its [*agent.LimitError].
func (l *loop) limit(kind agent.LimitKind, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	l.emit(Event{Kind: EventLimit, Text: msg})
	return &agent.LimitError{Kind: kind, Err: errors.New(msg)}
}

// policyStop reports that the policy ended the run and returns its
// [*agent.StopError].
func (l *loop) policyStop(kind agent.StopKind, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	l.emit(Event{Kind: EventLimit, Text: msg})
	return &agent.StopError{Kind: kind, Msg: msg}
}

// request streams one model answer, retrying transient failures. Text is
// forwarded as it arrives; when a stream breaks after its text began, the
// retry prints the whole answer again after an [EventStreamCut]. It returns
// the usage of the attempt that succeeded; what failed attempts reported is
// counted in the run's usage and budget as they fail, and a retry that
// would pass the budget is not made.
func (l *loop) request(ctx context.Context) (llm.Message, llm.StopReason, llm.Usage, error) {
	req := llm.Request{Model: l.cfg.Model, System: l.cfg.System, Messages: l.messages, Tools: l.specs}
	printed := false // text of the current attempt reached the sinks
	policy := l.cfg.Retry
	policy.Retryable = retryableAfterPrint
	c, err := agent.Complete(ctx, l.client, req, agent.CompleteOptions{Retry: policy, Clock: l.cfg.Clock,
		OnEvent: func(ev llm.Event) {
			switch {
			case ev.Kind == llm.EventText && ev.Text != "":
				printed = true
				l.emit(Event{Kind: EventTextDelta, Turn: l.turns, Text: ev.Text})
			case ev.Kind == llm.EventThinking && ev.Text != "":
				l.emit(Event{Kind: EventThinkingDelta, Turn: l.turns, Text: ev.Text})
			}
		},
		OnAttempt: func(u llm.Usage, err error) error {
			l.usage = l.usage.Add(u)
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
			if printed {
				l.emit(Event{Kind: EventStreamCut, Turn: l.turns})
				printed = false
			}
			l.emit(Event{Kind: EventRetry, Turn: l.turns, Retry: &RetryInfo{Attempt: n.Attempt, Wait: n.Wait, Reason: retryReason(n.Err), Err: n.Err}})
		},
	})
	return c.Message, c.Stop, c.Usage, err
}

// retryableAfterPrint retries what llm.IsRetryable does and also a stream
// cut after content arrived: the loop prints the answer again.
// A [agent.Permanent] error (a replay that diverged from its cassette) is
// never retried.
func retryableAfterPrint(err error) bool {
	if agent.PermanentCause(err) != nil {
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
func (l *loop) requestError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return l.contextError(ctx)
	}
	var be *budgetError
	if errors.As(err, &be) {
		return l.budgetStop(err)
	}
	if p := agent.PermanentCause(err); p != nil {
		// A replay's divergence: the run is not the recorded one, and the
		// replay's model "failed".
		return &agent.ProviderError{Err: p, Why: agent.ProviderPermanent}
	}
	if llm.IsContextLength(err) {
		return &agent.ProviderError{Err: err, Why: agent.ProviderContextLength}
	}
	return &agent.ProviderError{Err: err, Why: agent.ProviderFailed}
}

// summary is the closing tally of the run: in a chat, of this run only
// (its cost and sub-queries less what the chat spent before it).
func (l *loop) summary(start time.Time, code int) *Summary {
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
		ExitCode:     code,
		CostUSD:      cost,
		CostKnown:    known,
		Usage:        usage,
		Pending:      l.pending,
	}
}

// budgetStop reports a budget error from [Budget] (a *budgetError or a
// *agent.QueriesError) as the limit that ends the run.
func (l *loop) budgetStop(err error) error {
	l.emit(Event{Kind: EventLimit, Text: err.Error()})
	return &agent.LimitError{Kind: agent.LimitBudget, Err: err}
}

// requestCost is the cost of a request's usage at the price of the model
// it was made to, for [EventMessageDone]; nil when the price is unknown.
func (l *loop) requestCost(used llm.Usage) *float64 {
	c, ok := l.cfg.Budget.RequestCost(used)
	if !ok {
		return nil
	}
	return &c
}
