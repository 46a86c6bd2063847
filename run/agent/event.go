package agent

import (
	"encoding/json"
	"time"

	"github.com/rubichan/rubichan/llm"
)

//go:generate stringer -type=EventKind -trimprefix=Event

// EventKind says what an [Event] reports.
type EventKind uint8

// The kinds of event a run emits, in the order a run produces them.
const (
	// EventNotice is a note for stderr that is not an error: Text.
	EventNotice EventKind = iota + 1
	// EventTurnStart opens model request number Turn.
	EventTurnStart
	// EventTextDelta is a piece of the model's answer: Text.
	EventTextDelta
	// EventMessageDone closes an assistant message: Text is its whole text.
	EventMessageDone
	// EventStreamCut reports that a response was cut after its text began
	// and that its retry departed from the text already shown: that text
	// is void, and the retried text follows whole. A retry that repeats
	// the shown text is not reported (its text only extends it).
	EventStreamCut
	// EventRetry reports a failed request about to be retried: Retry.
	EventRetry
	// EventToolCall reports a tool call about to be judged and run: Tool.
	EventToolCall
	// EventToolDenied reports a call the policy refused: Tool, Denial.
	EventToolDenied
	// EventToolResult reports a finished tool call: Tool, Result.
	EventToolResult
	// EventLimit reports a limit that ends the run: Text names it.
	EventLimit
	// EventError reports the error that ends the run: Err.
	EventError
	// EventTurnDone closes the run: Summary.
	EventTurnDone
	// EventToolAllowed reports a call the policy allowed, before it runs:
	// Tool, Allow.
	EventToolAllowed
	// EventThinkingDelta is a piece of the model's reasoning: Text.
	EventThinkingDelta
	// EventHook reports one finished hook command: Hook.
	EventHook
	// EventCompaction reports that the older part of the conversation was
	// replaced by a summary: Compaction.
	EventCompaction
	// EventVerifyStart reports that the --verify command starts: Verify
	// (Command, Attempt).
	EventVerifyStart
	// EventVerify reports a finished --verify command: Verify.
	EventVerify
	// EventHistory reports a message added to the conversation, exactly as
	// the model will be sent it: Message (user or assistant). Only the
	// session records it.
	EventHistory
	// EventSubquery reports one sub-query a command of the run sent
	// through it (`rubichan query`): Subquery.
	EventSubquery
)

// Event is one thing that happened in a run. Which fields are set depends
// on Kind; see the constants.
type Event struct {
	Kind EventKind
	Turn int
	// Run is the number of the Agent's run the event belongs to, from 1
	// (line mode runs once per line); 0 when not set.
	Run int
	// At is when it happened; zero when not set.
	At     time.Time
	Text   string
	Tool   *ToolCallInfo
	Result *ToolResultInfo
	Denial *DenialInfo
	Allow  *AllowInfo
	Usage  *llm.Usage // EventMessageDone: the tokens of the request
	// Cost is, for EventMessageDone, the request's cost in USD at its
	// model's price; nil when the price is not known.
	Cost *float64
	Stop llm.StopReason // EventMessageDone: why the model stopped
	// Response is, for EventMessageDone, the provider's id of the
	// response and the model that made it.
	Response *ResponseInfo
	Retry    *RetryInfo
	Summary  *Summary
	Verify   *VerifyInfo
	Hook     *HookInfo
	Err      error
	Message  *llm.Message // EventHistory
	// Compaction is set for EventCompaction.
	Compaction *CompactionInfo
	// Subquery is set for EventSubquery.
	Subquery *SubqueryInfo
}

// ResponseInfo names one model response as its stream did; a field the
// provider did not send is "".
type ResponseInfo struct {
	ID    string // the provider's id of the response
	Model string // the model that answered, which may differ from the one asked
}

// HookInfo is one run of a configured hook.
type HookInfo struct {
	Name  string // the hook's name, or its command's first word
	Event string // before_tool, after_tool or stop
	Tool  string // the tool call's tool; "" for stop
	ID    string // the tool call's id; "" for stop
	// ExitCode is the hook's exit status; nil when it did not start or a
	// signal ended it.
	ExitCode *int
	Duration time.Duration
	// Decision is what came of it: allow, deny, rewrite (before_tool);
	// append, none (after_tool); finish, continue (stop); fail.
	Decision string
	Reason   string // deny, append, continue: the hook's message; rewrite: the new arguments; fail: why
}

// VerifyInfo is one run of the --verify command.
type VerifyInfo struct {
	Command  string
	Attempt  int  // from 1
	Max      int  // the attempts allowed
	Passed   bool // it exited 0 in time
	ExitCode *int // nil when it did not exit (a timeout, a signal)
	Duration time.Duration
	Output   string // head and tail of its output, with the tool's notes
}

// PatchInfo describes the patch written by --patch.
type PatchInfo struct {
	Path       string // the file, or "-" for stdout
	SHA256     string
	BaseCommit string // "" outside git or before the first commit
	DirtyBase  bool
	Files      int
	Partial    bool // the run did not finish: a limit, a signal, a failure
}

// ToolCallInfo names one tool call.
type ToolCallInfo struct {
	ID      string
	Name    string
	Summary string          // the gist of the arguments: a command, a path, a pattern
	Input   json.RawMessage // the arguments as the model sent them
}

// ToolResultInfo is the outcome of one tool call.
type ToolResultInfo struct {
	IsError  bool
	ExitCode *int // bash: the exit status
	Duration time.Duration
	Content  string // what the model sees
	Changed  []string
	Diff     string // write, edit: the unified diff of the change
	// NotRun marks the result of a call the policy refused: the model
	// gets it, the stderr and session sinks have shown the denial.
	NotRun bool
}

// DenialInfo is why the policy refused a call.
type DenialInfo struct {
	Rule   string // the rule's id, or where the decision came from
	Fact   string // what it matched: a command, a path
	Reason string
	// Ask says the policy asked for approval, which nobody could give;
	// Abort says that stopped the run rather than denying the call.
	Ask, Abort bool
	// Allow are the narrowest --allow rules (CLASS:PATTERN) that would
	// have let the call through; empty when no --allow can.
	Allow []string
	// Pending says the call was not refused but left for a person to
	// approve (--on-ask defer).
	Pending bool
	// Remedy, when no --allow rule can lift the refusal, says so, why,
	// and the alternatives (policy.Result.Remedy); "" otherwise.
	Remedy string
}

// AllowInfo is why the policy allowed a call.
type AllowInfo struct {
	Rule   string // the rule's id, or where the decision came from
	Fact   string // what it matched: a command, a path
	Reason string
}

// RetryInfo describes one retry of a model request.
type RetryInfo struct {
	Attempt int // the attempt that failed, from 1
	Wait    time.Duration
	Reason  string
	Err     error // the failure
}

// Summary is the closing tally of a run.
type Summary struct {
	Turns        int
	ToolCalls    int
	Denials      int // calls the policy refused
	InputTokens  int64
	OutputTokens int64
	Elapsed      time.Duration
	ExitCode     int
	CostUSD      float64   // the spend, when CostKnown
	CostKnown    bool      // false when the model's price is unknown
	Usage        llm.Usage // the whole run's tokens, by kind
	// Verified is nil when no --verify was asked, else whether it passed.
	Verified *bool
	// Patch is set when --patch wrote a patch.
	Patch *PatchInfo
	// StructuredOutput is the --json-schema answer, compact; nil without
	// one.
	StructuredOutput json.RawMessage
	// Status names how the run ended, in the words of the session file
	// ("done", "limit", …); "" means: from ExitCode.
	Status string
	// Pending are the calls a deferred run left for a person.
	Pending []Pending
	// Subqueries counts the sub-queries sent through the run; their
	// tokens and cost are in Usage, the token counts and CostUSD.
	Subqueries int
	// TraceID is the run's OpenTelemetry trace id, the caller's to fill;
	// "" when telemetry is off.
	TraceID string
	// TraceUnsent says the run's trace could not all be sent to the
	// collector (one warning line said why); the caller's to fill.
	TraceUnsent bool
}

// CompactionInfo describes one compaction of the conversation.
type CompactionInfo struct {
	// Reason is "threshold" (the estimate passed compact_at) or
	// "context_length" (the provider said the request was too long).
	Reason       string
	TokensBefore int // the estimated input tokens of the request before
	TokensAfter  int // … and after compaction
	// TurnsSummarised counts the assistant messages replaced by the
	// summary; MessagesSummarised all messages.
	TurnsSummarised    int
	MessagesSummarised int
	// MessagesKept counts the messages kept whole after the summary: a
	// resume rebuilds the compacted conversation with it.
	MessagesKept int
	Usage        llm.Usage // the summary request's tokens
	CostUSD      float64
	CostKnown    bool
	Summary      string // the summary's text
}

// SubqueryInfo is one sub-query a command of the run sent through it.
type SubqueryInfo struct {
	Model      string
	Status     string // [SubqueryOK], [SubqueryRefused] (a limit or the policy) or [SubqueryError]
	Usage      llm.Usage
	CostUSD    float64
	CostKnown  bool
	Duration   time.Duration
	InputBytes int64  // the material and the prompt
	Error      string // refused, error: why
	// Traceparent is the W3C trace context the command that sent it ran
	// under (its TRACEPARENT); "" when none.
	Traceparent string
}

// The statuses of a [SubqueryInfo].
const (
	SubqueryOK      = "ok"
	SubqueryRefused = "refused"
	SubqueryError   = "error"
)
