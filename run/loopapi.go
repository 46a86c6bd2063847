package run

import (
	"context"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
)

// What the loop's caller may do between runs (a chat's commands), as
// methods: nothing outside the loop writes its fields (issue 31, K5).

// runBase is what a chat had spent when a run began: the run's summary
// and result count from there (the caps count the whole chat).
type runBase struct {
	cost     float64
	subs     int
	subUsage llm.Usage
}

// newRun starts the counters of a new run: turns, tool calls, denials,
// usage, pending calls and checks are per run; the conversation, the
// budget and the compaction state go on. In a headless run the budget's
// snapshot is zero: nothing is spent before the first request.
func (l *loop) newRun() {
	l.turns, l.toolCalls, l.denials = 0, 0, 0
	l.usage, l.pending = llm.Usage{}, nil
	l.before.cost, _ = l.cfg.Budget.Cost()
	l.before.subs, l.before.subUsage = l.cfg.Budget.SubTotals()
	l.attempts = make([]int, len(l.cfg.Verifiers))
}

// Reset drops the conversation and the estimator's sizes (/clear): the
// next run starts a new conversation.
func (l *loop) Reset() {
	l.messages = nil
	l.est.reset(nil)
}

// Model is the model the next request asks.
func (l *loop) Model() string { return l.cfg.Model }

// SetModel switches the model of the next requests (/model): its
// compaction window, and the model the budget prices.
func (l *loop) SetModel(model string, c compactConfig) {
	l.cfg.Model = model
	l.cfg.Compact = c
	l.cfg.Budget.SetModel(model)
}

// Messages is the conversation: the next run's history.
func (l *loop) Messages() []llm.Message { return l.messages }

// ToolSpecs are the tools as sent to the model (for the init event).
func (l *loop) ToolSpecs() []llm.ToolSpec { return l.specs }

// Pending are the calls the last run left for a person.
func (l *loop) Pending() []agent.Pending { return l.pending }

// compactOutcome is what [loop.CompactNow] did.
type compactOutcome uint8

const (
	compactOff      compactOutcome = iota + 1 // compaction is off
	compactTooShort                           // fewer than 3 messages
	compactNothing                            // nothing could be summarised
	compacted
)

// CompactNow compacts the conversation at once (/compact), as the loop
// does when it nears the window: the summary request, the compaction
// event and the session line.
func (l *loop) CompactNow(ctx context.Context) (compactOutcome, error) {
	if !l.compactOn() {
		return compactOff, nil
	}
	if len(l.messages) < 3 {
		return compactTooShort, nil
	}
	ok, err := l.compact(ctx, events.CompactManual, l.est.estimate(l.messages), 0)
	switch {
	case err != nil:
		return compactNothing, err
	case !ok:
		return compactNothing, nil
	}
	return compacted, nil
}
