package agent

import (
	"context"
	"slices"
	"strings"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/toolkit"
)

// What the Agent's caller may do between runs (a chat's commands), as
// methods: nothing outside the Agent writes its fields.

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
func (l *Agent) newRun() {
	l.turns, l.toolCalls, l.denials = 0, 0, 0
	l.usage, l.pending = llm.Usage{}, nil
	l.before.cost, _ = l.cfg.Budget.Cost()
	l.before.subs, l.before.subUsage = l.cfg.Budget.SubTotals()
	l.attempts = make([]int, len(l.cfg.Verifiers))
}

// Reset drops the conversation and the estimator's sizes (/clear): the
// next run starts a new conversation.
func (l *Agent) Reset() {
	l.messages = nil
	l.est.reset(nil)
}

// Model is the model the next request asks.
func (l *Agent) Model() string { return l.cfg.Model }

// SetModel switches the model of the next requests (/model): its
// compaction window, and the model the budget prices.
func (l *Agent) SetModel(model string, c Compact) {
	l.cfg.Model = model
	l.cfg.Compact = c
	l.cfg.Budget.SetModel(model)
}

// SetStructured switches structured output for the next runs (line
// mode's /schema): the native format and the final tool ([Options.Format],
// [Options.FinalTool]); nil and a zero Spec turn it off.
func (l *Agent) SetStructured(format *llm.JSONFormat, final toolkit.Spec) {
	if l.cfg.FinalTool.Name != "" {
		l.specs = l.specs[:len(l.specs)-1] // the final tool is offered last
	}
	l.cfg.Format, l.cfg.FinalTool = format, final
	if final.Name != "" {
		l.specs = append(slices.Clip(l.specs), llm.ToolSpec{Name: final.Name, Description: strings.TrimSpace(final.Description), Schema: CompactJSON(final.Schema)})
	}
	l.est.fixed = newTokenEstimator(l.cfg.System, l.specs).fixed
}

// Messages is the conversation: the next run's history.
func (l *Agent) Messages() []llm.Message { return l.messages }

// ToolSpecs are the tools as sent to the model (for the init event).
func (l *Agent) ToolSpecs() []llm.ToolSpec { return l.specs }

// Pending are the calls the last run left for a person.
func (l *Agent) Pending() []Pending { return l.pending }

// CompactOutcome is what [Agent.CompactNow] did.
type CompactOutcome uint8

// The outcomes of [Agent.CompactNow].
const (
	CompactOff      CompactOutcome = iota + 1 // compaction is off
	CompactTooShort                           // fewer than 3 messages
	CompactNothing                            // nothing could be summarised
	Compacted                                 // the conversation was compacted
)

// CompactManual is the reason of a compaction a person asked for
// ([Agent.CompactNow]), as [CompactionInfo] reports it.
const CompactManual = "manual"

// CompactNow compacts the conversation at once (/compact), as the Agent
// does when it nears the window: the summary request, the compaction
// event and the session line.
func (l *Agent) CompactNow(ctx context.Context) (CompactOutcome, error) {
	if !l.compactOn() {
		return CompactOff, nil
	}
	if len(l.messages) < 3 {
		return CompactTooShort, nil
	}
	ok, err := l.compact(ctx, CompactManual, l.est.estimate(l.messages), 0)
	switch {
	case err != nil:
		return CompactNothing, err
	case !ok:
		return CompactNothing, nil
	}
	return Compacted, nil
}
