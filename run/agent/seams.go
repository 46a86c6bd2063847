package agent

import (
	"context"
	"encoding/json"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/toolkit"
)

// The seams below are how the engine calls back into its caller: the
// caller implements them (the harness with the policy, the [[hooks]]
// runner, --verify), and the engine never learns what is behind them.

// VerdictKind is a [Judge]'s answer for one call. The zero value is none
// of the kinds.
type VerdictKind uint8

// The kinds of [Verdict].
const (
	VerdictAllow VerdictKind = iota + 1
	VerdictDeny
	VerdictAsk // approval needed: an [Asker] answers, or the run's OnAsk decides
)

// Verdict is the decision on one tool call.
type Verdict struct {
	Kind    VerdictKind
	Rule    string   // the rule that decided
	Fact    string   // what it matched
	Reason  string   // why
	Message string   // what the model is told on a denial
	Allow   []string // the narrowest --allow rules that would let it through
	Remedy  string   // when no --allow rule can lift a refusal: why, and the alternatives
	// ReadOnly says that every effect of the call is a read, or none (a
	// file read, a search, a shell command the judge sees through that
	// only reads, an MCP tool a trusted server declares read-only). An
	// allowed ReadOnly call may run at once with its read-only neighbours
	// in the same message; any other call is a barrier and runs alone.
	ReadOnly bool
	// Detail is the judge's own record of the decision (the harness's
	// policy result), handed back to the [Asker] unchanged; nil for the
	// engine's own verdicts.
	Detail any
}

// Judge decides one tool call from its effects. It never fails: a judge
// that cannot decide denies (fail closed).
type Judge func(tool string, eff toolkit.Effects) Verdict

// An Asker asks a person about a call its [Judge] answered with
// [VerdictAsk], and returns the person's verdict: allow or deny.
type Asker interface {
	Ask(ctx context.Context, call llm.Block, eff toolkit.Effects, v Verdict) Verdict
}

// ToolCall is one tool call as the hooks see it.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// HookDecision is what came of the hooks of one event.
type HookDecision string

// The decisions of the hooks, as the hook event reports them.
const (
	HookAllow    HookDecision = "allow"    // before_tool: go on
	HookDeny     HookDecision = "deny"     // before_tool: the hook refused the call
	HookRewrite  HookDecision = "rewrite"  // before_tool: the hook replaced the arguments
	HookAppend   HookDecision = "append"   // after_tool: the hook's stderr was added to the result
	HookNone     HookDecision = "none"     // after_tool: nothing to add
	HookFinish   HookDecision = "finish"   // stop: the run may end
	HookContinue HookDecision = "continue" // stop: the model was sent back to work
	HookFailed   HookDecision = "fail"     // the hook failed (before_tool: the call is denied)
)

// HookOutcome is what the before_tool hooks decided about one call.
type HookOutcome struct {
	Decision HookDecision // HookAllow, HookDeny, HookRewrite or HookFailed
	Hook     string       // the hook that denied or rewrote
	Reason   string       // HookDeny, HookFailed: what the model is told
	// Input is, for HookRewrite, the new arguments; the engine judges
	// them again as if the model had sent them.
	Input json.RawMessage
	// Next is, for HookRewrite, the index of the hook to run next.
	Next int
}

// Hooks are the commands a run calls around its tool calls and at its end.
type Hooks interface {
	// BeforeTool runs the before_tool hooks that match call, from index
	// from on, until one denies, fails or rewrites the arguments.
	BeforeTool(ctx context.Context, turn int, call ToolCall, from int) HookOutcome
	// AfterTool runs the after_tool hooks that match call and returns the
	// result, with what they added.
	AfterTool(ctx context.Context, turn int, call ToolCall, res toolkit.Result) toolkit.Result
	// Stop runs the stop hooks when the model has answered: what it
	// returns is sent back to the model, and "" lets the run end.
	Stop(ctx context.Context, turn int) (sendBack string)
}

// Final is a run's final answer: the text of the last assistant message,
// or the input of a call to [Options.FinalTool].
type Final struct {
	Text    string
	Message llm.Message
	Tool    string          // set when a FinalTool ended the run
	Input   json.RawMessage // that call's arguments
	Turn    int
}

// A Verifier checks the final answer after the stop hooks passed. A failed
// check sends Feedback to the model and the run goes on. When the check
// gives up, Stop ends the run: the engine emits [EventLimit] with its
// message and returns it. An error ends the run.
type Verifier interface {
	// Verify checks final; attempt counts from 1 in each run.
	Verify(ctx context.Context, attempt int, final Final) (Verification, error)
}

// Verification is the outcome of one [Verifier] check.
type Verification struct {
	Passed   bool
	Feedback string // !Passed: the user message the model gets
	Stop     error  // !Passed and no attempt left: why the run ends
}

// Around lets the caller run each operation of the engine inside a
// context of its own (a tracing span, so that what a tool starts can name
// it as its parent): the engine calls Around with the context it would
// use and runs the operation with the context given to do. Around must
// call do exactly once and return its error. The events of the
// operation are emitted while do runs, on the goroutine that called
// Around — but for tool calls run at once ([Verdict.ReadOnly]): each is
// called on a goroutine of its own, so that their operations overlap as
// the calls do, and their events come from the loop's goroutine while do
// runs. An Around must be safe for concurrent use.
type Around interface {
	Around(ctx context.Context, op Op, do func(context.Context) error) error
}

// OpKind says what an [Op] is.
type OpKind uint8

// The kinds of [Op].
const (
	OpRequest    OpKind = iota + 1 // one model request, its retries inside: EventTurnStart … EventMessageDone
	OpToolCall                     // one tool call, judge, hooks and run: EventToolCall … its result
	OpCompaction                   // the summary request of a compaction, until EventCompaction
	OpVerify                       // one Verifier check
)

// Op is one operation the engine runs through [Around].
type Op struct {
	Kind    OpKind
	Turn    int           // the model request it belongs to
	Model   string        // OpRequest, OpCompaction: the model asked
	Call    *ToolCallInfo // OpToolCall: the call
	Attempt int           // OpVerify: the check's attempt, from 1
}

// around runs do through o.Around, or directly without one.
func (l *Agent) around(ctx context.Context, op Op, do func(context.Context) error) error {
	if l.cfg.Around == nil {
		return do(ctx)
	}
	return l.cfg.Around.Around(ctx, op, do)
}
