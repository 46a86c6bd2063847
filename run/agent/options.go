package agent

import (
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/toolkit"
)

// Options are what an [Agent] is built with: fixed for its life, but for
// the model and the compaction window, which [Agent.SetModel] switches.
type Options struct {
	Model  string
	System string
	Tools  []toolkit.Tool
	Limits Limits
	Budget *Budget // token and cost caps; nil: none
	Retry  llm.RetryPolicy
	Clock  llm.Clock // retry waits; nil: the system clock
	// Now stamps events and times tool calls; nil: time.Now. It must be
	// safe for concurrent use: calls that run at once time themselves.
	Now func() time.Time
	// Parallel is how many consecutive read-only calls of one message
	// ([Verdict.ReadOnly]) run at once; 0: [DefaultParallel], 1: one
	// after another.
	Parallel int
	// Compact says when the conversation is compacted; a zero Window:
	// never, and a context-length error ends the run.
	Compact Compact
	// Judge decides every tool call; nil denies them all (fail closed).
	Judge Judge
	// Answers are a person's answers to calls an earlier run deferred,
	// by call id (--approve, --deny-pending).
	Answers map[string]Approval
	// AskedFacts lists the facts of a [VerdictAsk] verdict that need
	// approval, in the judge's order, from the judge's own record
	// ([Verdict.Detail]); nil, or an empty list: the verdict's one Fact.
	AskedFacts func(Verdict) []PendingFact
	// Ask, when set, asks a person about a call the judge answered with
	// [VerdictAsk] and returns the verdict to act on. nil: such a call
	// resolves as OnAsk says.
	Ask   Asker
	OnAsk OnAsk
	// Preview returns the diff a write or edit call would make, for the
	// pending calls of a deferred run; nil: none.
	Preview func(call llm.Block, eff toolkit.Effects) string
	// Hooks are the commands run around tool calls and at the end of a
	// run; nil: none.
	Hooks Hooks
	// Verifiers check the final answer after the stop hooks passed, in
	// order; a failed check sends the model back to work.
	Verifiers []Verifier
	// FinalTool, when its Name is set, is offered to the model after the
	// tools: a call to it is the run's final answer (structured output's
	// fallback on a provider without a native form). The engine answers
	// it itself, without the judge or hooks: the call's result is
	// [FinalRecorded], the calls after it in the same message are not
	// run, and the Verifiers check the [Final] with its Tool and Input.
	// When they pass, the run ends with no request after the call; a
	// failed check sends the model back as after a text answer.
	FinalTool toolkit.Spec
	// Format asks the provider, on every request, for a final answer that
	// is JSON matching a schema, in its native form; nil: free text.
	Format *llm.JSONFormat
	// Redact hides the run's secrets in tool results before the model,
	// the sinks or the session see them. nil: no change.
	Redact *Redactor
	// Heartbeat says when a silent model gets a notice; zero: never.
	Heartbeat Heartbeat
	// Around, when set, runs each model request, tool call, compaction
	// and verify check inside the caller's context (telemetry spans);
	// nil: they run in the run's context.
	Around Around
	// Emit receives every event of the runs; required. With a Heartbeat
	// its notices come from another goroutine; the Agent serialises its
	// calls of Emit, so Emit needs no lock of its own.
	Emit func(Event)
}

// DefaultParallel is the bound on read-only calls run at once when
// [Options.Parallel] is 0.
const DefaultParallel = 8

// Limits end a run.
type Limits struct {
	MaxTurns     int           // model requests per run; at least 1
	MaxToolCalls int           // 0: none
	MaxDenials   int           // 0: none
	Timeout      time.Duration // for the limit message only; the caller sets the deadline with cause ErrTimeout
}

// AskMode says what becomes of a call the judge answered with
// [VerdictAsk] when no [Asker] answered it.
type AskMode uint8

// The modes of [OnAsk].
const (
	AskDeny  AskMode = iota // the call is denied and the model told
	AskAbort                // the run stops with a [*StopError] of kind StopPolicy
	AskDefer                // the call is left pending; the run stops with a [*StopError] of kind StopDeferred
)

// OnAsk says what becomes of a call that needs approval in a run nobody
// can ask, and why, for the messages ("--on-ask is abort", "the policy's
// headless_ask is defer").
type OnAsk struct {
	Mode AskMode
	Why  string
}

// denyAll is the judge of an Agent built without one.
func denyAll(tool string, _ toolkit.Effects) Verdict {
	return Verdict{Kind: VerdictDeny, Rule: "no judge", Fact: tool, Reason: "no judge decides the calls of this run"}
}
