package events

import "encoding/json"

// SchemaVersion is the version of the event format, carried by every
// event as "schema_version". It changes only when a field is renamed,
// removed or changes meaning; adding a field or an event type keeps it.
const SchemaVersion = 1

// Event is one line of the stream. The [Encoder] adds the fields every
// event has: schema_version, type (from EventType), ts and session_id.
type Event interface {
	// EventType is the event's "type": "init", "text", "result", ….
	EventType() string
}

// Init opens the stream: what the run is about to use.
type Init struct {
	Version   string   `json:"version"`
	Commit    string   `json:"commit"`   // the VCS revision (12 hex digits), "" when unknown
	Modified  bool     `json:"modified"` // built from a work tree with uncommitted changes
	Go        string   `json:"go"`       // the Go toolchain that built the binary
	Provider  string   `json:"provider"`
	Model     string   `json:"model"`
	Workspace string   `json:"workspace"` // absolute path of the workspace root
	Tools     []string `json:"tools"`     // the names of the tools offered to the model
	Policy    Policy   `json:"policy"`
	Limits    Limits   `json:"limits"`
	Sandbox   Sandbox  `json:"sandbox"`
	// MCP is the run's MCP servers; absent when none is configured.
	MCP *MCP `json:"mcp,omitempty"`
	// AllowAll says --allow-all is on: every tool call allowed inside the
	// OS sandbox but the secret denials and guarded paths; absent when
	// off.
	AllowAll bool `json:"allow_all,omitempty"`
	// Skills are the skills the run offers in its system prompt; absent
	// when none.
	Skills []Skill `json:"skills,omitempty"`
	// JSONSchema is the digest of --json-schema; absent without one.
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// Skill is one skill a run offers: its name and the hex SHA-256 of its
// SKILL.md.
type Skill struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// JSONSchema identifies the schema of a run's structured output.
type JSONSchema struct {
	SHA256 string `json:"sha256"` // hex SHA-256 of the schema, compact
}

// MCP is what the run's MCP servers offer, after start-up.
type MCP struct {
	Servers []MCPServer `json:"servers"`
	// SpecBytes is the size of the MCP tools' specs (name, description,
	// input schema as JSON): sent again with every model request.
	SpecBytes int `json:"spec_bytes"`
}

// MCPServer is one configured MCP server after start-up.
type MCPServer struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`        // "stdio" or "http"
	Status    string `json:"status"`           // "ready", "failed" or "timeout"
	Reason    string `json:"reason,omitempty"` // why it is not ready
	Required  bool   `json:"required"`
	Tools     int    `json:"tools"` // the tools offered to the model
}

// Sandbox is what the OS sandbox of the shell commands achieves in the
// run (see `rubichan sandbox check`).
type Sandbox struct {
	Mode        string `json:"mode"`         // "auto", "required" or "off"
	LandlockABI int    `json:"landlock_abi"` // the kernel's Landlock ABI; 0 without Landlock
	Filesystem  bool   `json:"filesystem"`   // writes are confined to the workspace, TMPDIR and writable roots
	Network     string `json:"network"`      // "blocked", "allowed" or "unblockable"
}

// Policy names the policy of a run.
type Policy struct {
	Source string `json:"source"` // a file's path, or "built-in default policy"
	SHA256 string `json:"sha256"` // hex; see the README for what is hashed
}

// Limits are a run's limits; 0 means none.
type Limits struct {
	MaxTurns       int     `json:"max_turns"`
	TimeoutMS      int64   `json:"timeout_ms"`
	MaxToolCalls   int     `json:"max_tool_calls"`
	MaxTokensTotal int64   `json:"max_tokens_total"`
	MaxCostUSD     float64 `json:"max_cost_usd"`
}

// TurnStart opens model request number Turn (from 1).
type TurnStart struct {
	Turn int `json:"turn"`
}

// Text is a piece of the model's answer, as it streams.
type Text struct {
	Turn  int    `json:"turn"`
	Delta string `json:"delta"`
}

// Thinking is a piece of the model's reasoning, as it streams; written
// only with --include-thinking.
type Thinking struct {
	Turn  int    `json:"turn"`
	Delta string `json:"delta"`
}

// Usage counts tokens.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
}

// Message closes one assistant message.
type Message struct {
	Turn       int      `json:"turn"`
	Text       string   `json:"text"`        // the whole text of the message
	StopReason string   `json:"stop_reason"` // end_turn, tool_use, max_tokens, …
	Usage      Usage    `json:"usage"`       // the tokens of this request
	CostUSD    *float64 `json:"cost_usd"`    // nil (null) when the model's price is unknown
}

// ToolCall is a tool call the model made, before the policy judges it.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is the parsed arguments, or a JSON string holding them as
	// sent when they are not valid JSON.
	Input json.RawMessage `json:"input"`
}

// The policy's decisions and how an ask was resolved.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
	DecisionAsk   = "ask"
	ResolvedAbort = "abort"
	// ResolvedDefer: the call was left pending for a person (--on-ask defer).
	ResolvedDefer = "defer"
)

// PolicyDecision is the policy's answer for tool call ID.
type PolicyDecision struct {
	ID       string `json:"id"`
	Decision string `json:"decision"` // allow, deny or ask
	Rule     string `json:"rule"`
	Fact     string `json:"fact"`
	Reason   string `json:"reason"`
	// ResolvedAs is how an ask was resolved without a person: allow,
	// deny or abort; omitted for allow and deny.
	ResolvedAs string `json:"resolved_as,omitempty"`
}

// Caps on what a tool_result carries; the model saw all of it.
const (
	ContentMax = 8 << 10
	DiffMax    = 64 << 10
)

// ToolResult is the outcome of tool call ID, also of one that never ran
// (denied, unknown tool, malformed arguments).
type ToolResult struct {
	ID         string `json:"id"`
	IsError    bool   `json:"is_error"`
	ExitCode   *int   `json:"exit_code"` // bash's exit status; null for other tools
	DurationMS int64  `json:"duration_ms"`
	Content    string `json:"content"` // at most ContentMax bytes
	// Truncated says Content or Diff was cut to its cap.
	Truncated    bool     `json:"truncated"`
	FilesChanged []string `json:"files_changed"`
	Diff         *string  `json:"diff"` // write, edit: at most DiffMax bytes; null for other tools
}

// Hook is one finished run of a configured hook command (see README
// "Hooks"): before_tool after the policy allowed call ID and before it
// ran, after_tool after it ran, stop when the model gave its final answer.
type Hook struct {
	Name  string  `json:"name"`  // the hook's name, or its command's first word
	Event string  `json:"event"` // before_tool, after_tool or stop
	ID    *string `json:"id"`    // the tool call's id; null for stop
	Tool  *string `json:"tool"`  // the tool call's tool; null for stop
	// ExitCode is the hook's exit status; null when it did not start or
	// a signal ended it (a timeout).
	ExitCode   *int  `json:"exit_code"`
	DurationMS int64 `json:"duration_ms"`
	// Decision is what came of it: allow, deny, rewrite (before_tool);
	// append, none (after_tool); finish, continue (stop); fail (the hook
	// failed: before_tool then denies the call).
	Decision string `json:"decision"`
	// Reason is the hook's message (deny, append, continue), the new
	// arguments (rewrite) or why it failed (fail); "" otherwise.
	Reason string `json:"reason"`
}

// Verify reports one run of the --verify command after a final answer.
type Verify struct {
	Command     string `json:"command"`
	Attempt     int    `json:"attempt"`      // from 1
	MaxAttempts int    `json:"max_attempts"` // --verify-attempts
	Passed      bool   `json:"passed"`
	ExitCode    *int   `json:"exit_code"` // null when it did not exit (its timeout, a signal)
	DurationMS  int64  `json:"duration_ms"`
	Output      string `json:"output"` // head and tail, capped like bash's
}

// Patch describes the patch --patch wrote.
type Patch struct {
	Path       string  `json:"path"` // the file, or "-" for stdout
	SHA256     string  `json:"sha256"`
	BaseCommit *string `json:"base_commit"` // null outside git or before the first commit
	DirtyBase  bool    `json:"dirty_base"`
	Files      int     `json:"files"`
	Partial    bool    `json:"partial"` // the run stopped before the model finished
}

// Retry reports a failed model request about to be tried again.
type Retry struct {
	Attempt int        `json:"attempt"` // the attempt that failed, from 1
	WaitMS  int64      `json:"wait_ms"`
	Error   RetryError `json:"error"`
}

// StreamCut says the answer of Turn broke after text was sent and its
// retry departed from that text: the text events of Turn so far are void
// and the retried answer's text follows whole. A retry that repeats the
// sent text has no StreamCut: its text events only extend it.
type StreamCut struct {
	Turn int `json:"turn"`
}

// The reasons of a [Compaction].
const (
	CompactThreshold     = "threshold"
	CompactContextLength = "context_length"
	// CompactManual: a person asked for it (line mode's /compact).
	CompactManual = "manual"
)

// Compaction says the conversation was compacted before a request: its
// older part was replaced by a summary the model wrote, keeping the first
// user message and the most recent turns.
type Compaction struct {
	Reason             string   `json:"reason"`        // CompactThreshold or CompactContextLength
	TokensBefore       int      `json:"tokens_before"` // the estimated input tokens of the next request
	TokensAfter        int      `json:"tokens_after"`
	TurnsSummarised    int      `json:"turns_summarised"`    // assistant messages replaced
	MessagesSummarised int      `json:"messages_summarised"` // all messages replaced
	Usage              Usage    `json:"usage"`               // the summary request's tokens
	CostUSD            *float64 `json:"cost_usd"`            // nil (null) when the price is unknown
}

// Subquery is one sub-query a command of the run sent through it
// (`rubichan query`, see docs/subqueries.md): counted against the run's
// limits and included in the result's usage and cost.
type Subquery struct {
	Model      string   `json:"model"`
	Status     string   `json:"status"` // ok, refused (a limit, the policy) or error (the provider)
	Usage      Usage    `json:"usage"`
	CostUSD    *float64 `json:"cost_usd"` // null when the model's price is unknown or nothing was sent
	DurationMS int64    `json:"duration_ms"`
	InputBytes int64    `json:"input_bytes"` // the material and the prompt
	Error      string   `json:"error,omitempty"`
}

// Notice is a note stderr shows: spilled stdin, ignored workspace
// settings, ….
type Notice struct {
	Message string `json:"message"`
}

// RetryError is why a model request failed before a retry.
type RetryError struct {
	Type    string `json:"type"`    // one of the Err constants
	Status  *int   `json:"status"`  // the HTTP status; null when there was none
	Message string `json:"message"` // for people
}

// ResultError is why a run did not succeed.
type ResultError struct {
	Type    string `json:"type"`    // one of the Err constants
	Message string `json:"message"` // for people
	// Retryable says the same run may succeed later unchanged: a
	// transient provider failure, a timeout, an interruption.
	Retryable bool `json:"retryable"`
}

// Result is always the last event of a run, whatever ended it. In line
// mode each run ends with its own; a chat that made no run ends with one
// too (no turns, the chat's exit code).
type Result struct {
	Status       string       `json:"status"` // one of the Status constants
	ExitCode     int          `json:"exit_code"`
	Error        *ResultError `json:"error,omitempty"` // set unless Status is success
	FinalText    string       `json:"final_text"`      // the whole last assistant message
	NumTurns     int          `json:"num_turns"`
	NumToolCalls int          `json:"num_tool_calls"`
	Denials      int          `json:"denials"`
	Usage        Usage        `json:"usage"`
	CostUSD      *float64     `json:"cost_usd"` // null when the price is unknown
	DurationMS   int64        `json:"duration_ms"`
	FilesChanged []string     `json:"files_changed"` // workspace-relative, sorted
	SessionPath  *string      `json:"session_path"`  // null without a session log
	Verified     *bool        `json:"verified"`      // null without --verify
	// StructuredOutput is the --json-schema answer, the JSON value
	// itself; absent without one.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
	Patch            *Patch          `json:"patch"` // null without --patch
	// Pending are the calls a deferred run left for a person to approve
	// or deny (status "deferred"); absent otherwise.
	Pending []Pending `json:"pending,omitempty"`
	// TraceID is the run's OpenTelemetry trace id, to link a CI log to
	// the trace; absent without telemetry.
	TraceID string `json:"trace_id,omitempty"`
}

// Pending is a tool call waiting for a person's approval: its id, tool,
// the fact the policy matched, the rule that asked, and for a write or
// edit the diff it would make. `rubichan exec --resume SESSION --approve
// ID` runs it.
type Pending struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
	Fact string `json:"fact"`
	Rule string `json:"rule"`
	// Facts are, when the call has more than one, all its facts that
	// need approval ("kind: value") with the rule that asked; approving
	// the call approves these and nothing else.
	Facts []PendingFact `json:"facts,omitempty"`
	Diff  string        `json:"diff,omitempty"`
}

// PendingFact is one fact of a pending call that needs approval.
type PendingFact struct {
	Fact string `json:"fact"`
	Rule string `json:"rule"`
}

// The statuses of a [Result].
const (
	StatusSuccess     = "success"
	StatusError       = "error"
	StatusLimit       = "limit"
	StatusDenied      = "denied"
	StatusDeferred    = "deferred" // paused for an approval: see [Result.Pending]
	StatusInterrupted = "interrupted"
)

// EventType returns "init".
func (Init) EventType() string { return "init" }

// EventType returns "turn_start".
func (TurnStart) EventType() string { return "turn_start" }

// EventType returns "text".
func (Text) EventType() string { return "text" }

// EventType returns "thinking".
func (Thinking) EventType() string { return "thinking" }

// EventType returns "message".
func (Message) EventType() string { return "message" }

// EventType returns "tool_call".
func (ToolCall) EventType() string { return "tool_call" }

// EventType returns "policy_decision".
func (PolicyDecision) EventType() string { return "policy_decision" }

// EventType returns "tool_result".
func (ToolResult) EventType() string { return "tool_result" }

// EventType returns "retry".
func (Retry) EventType() string { return "retry" }

// EventType returns "hook".
func (Hook) EventType() string { return "hook" }

// EventType returns "stream_cut".
func (StreamCut) EventType() string { return "stream_cut" }

// EventType returns "compaction".
func (Compaction) EventType() string { return "compaction" }

// EventType returns "subquery".
func (Subquery) EventType() string { return "subquery" }

// EventType returns "notice".
func (Notice) EventType() string { return "notice" }

// EventType returns "verify".
func (Verify) EventType() string { return "verify" }

// EventType returns "result".
func (Result) EventType() string { return "result" }
