package session

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/rubichan/rubichan/llm"
)

// Format is the version of the line format, written as "format" in the
// header. It changes when a field changes meaning or goes away, not when
// one is added. Format 1 files (which said "schema":1) hold no
// conversation and cannot be resumed.
const Format = 2

// Caps on what a "tool_result" line keeps of a tool's output for a reader:
// a preview. The model saw all of it, and the "user" line that carries the
// result to the model keeps all of it, so the preview is short (writing a
// result twice in full would double the log's cost per tool call).
const (
	ContentMax = 4 << 10
	DiffMax    = 64 << 10
)

// Caps on the other fields of a record line, so that no such line grows
// with what the model sends (a 20 MB tool call was one 20 MB line): a tool
// call's input, a message's text, a rule's fact and reason, an error, the
// prompt. A cut field keeps its start, and the line's "truncated" object
// gives its full size in bytes: {"truncated": {"input": 20971520}}. A cut
// input is recorded as a string, since its start is no longer valid JSON.
// The conversation lines ("user", "assistant") are never cut.
const (
	InputMax  = 64 << 10
	TextMax   = 256 << 10
	PromptMax = 1 << 20
	FieldMax  = 4 << 10
)

// The line types of a session file.
const (
	TypeHeader     = "session"
	TypeRun        = "run"
	TypeSystem     = "system"
	TypeUser       = "user"
	TypeAssistant  = "assistant"
	TypeNotice     = "notice"
	TypeTurn       = "turn"
	TypeMessage    = "message"
	TypeStreamCut  = "stream_cut"
	TypeRetry      = "retry"
	TypeToolCall   = "tool_call"
	TypeDecision   = "decision"
	TypeToolResult = "tool_result"
	TypeLimit      = "limit"
	TypeError      = "error"
	TypeEnd        = "end"
	// TypeCompaction replaces the older part of the conversation by a
	// summary: the first message, the summary ([SummaryPreface] + text),
	// then the last messages_kept messages.
	TypeCompaction = "compaction"
	// TypeClear marks where line mode's /clear began a new conversation:
	// a resumed session restores what came after it.
	TypeClear = "clear"
)

// Statuses of an "end" line.
const (
	StatusDone        = "done"        // exit 0
	StatusDeferred    = "deferred"    // exit 3 with pending calls
	StatusStopped     = "stopped"     // exit 3: the policy ended the run
	StatusLimit       = "limit"       // exit 4
	StatusFailed      = "failed"      // exit 1, 2, 5, 6, 141
	StatusInterrupted = "interrupted" // exit 130, 143
)

// Line is one line of a session. Which fields are set depends on Type
// (see docs/sessions.md); fields are in the order they are written.
type Line struct {
	Type string `json:"type"`
	Time string `json:"time"`
	Turn int    `json:"turn,omitempty"`

	// session (header) and run
	Format      int      `json:"format,omitempty"`
	ID          string   `json:"id,omitempty"` // also tool_call, decision, tool_result: the call's id
	Run         int      `json:"run,omitempty"`
	PID         int      `json:"pid,omitempty"`
	Version     string   `json:"version,omitempty"`
	Commit      string   `json:"commit,omitempty"`
	Modified    bool     `json:"modified,omitempty"`
	GoVersion   string   `json:"go,omitempty"`
	Workspace   string   `json:"workspace,omitempty"`
	Provider    string   `json:"provider,omitempty"` // also assistant
	API         string   `json:"api,omitempty"`      // also assistant: anthropic or openai
	Model       string   `json:"model,omitempty"`    // also assistant
	Policy      string   `json:"policy,omitempty"`
	PolicyFile  string   `json:"policy_file,omitempty"`
	ForkedFrom  string   `json:"forked_from,omitempty"`
	Approve     []string `json:"approve,omitempty"`
	DenyPending bool     `json:"deny_pending,omitempty"`
	PromptBytes *int     `json:"prompt_bytes,omitempty"`
	Prompt      *string  `json:"prompt,omitempty"`
	// JSONSchema is the run's --json-schema, which a run resuming the
	// session without one keeps.
	JSONSchema json.RawMessage `json:"json_schema,omitempty"`

	// system
	Hash  string       `json:"hash,omitempty"`
	Parts []PromptPart `json:"parts,omitempty"`

	// user, assistant
	Content []Block `json:"blocks,omitempty"`

	// tool_call, decision, tool_result
	Name     string `json:"name,omitempty"`
	Input    any    `json:"input,omitempty"`
	Event    string `json:"event,omitempty"` // hook: before_tool, after_tool, stop
	Tool     string `json:"tool,omitempty"`  // hook: the call's tool
	Decision string `json:"decision,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Fact     string `json:"fact,omitempty"`
	Reason   string `json:"reason,omitempty"` // also retry

	IsError          *bool    `json:"is_error,omitempty"`
	ExitCode         *int     `json:"exit_code,omitempty"` // also end
	DurationMS       *int64   `json:"duration_ms,omitempty"`
	Output           *string  `json:"content,omitempty"`
	ContentBytes     int      `json:"content_bytes,omitempty"`
	ContentTruncated bool     `json:"content_truncated,omitempty"`
	Diff             string   `json:"diff,omitempty"`
	DiffTruncated    bool     `json:"diff_truncated,omitempty"`
	Changed          []string `json:"changed,omitempty"`

	// notice, message, limit, error, retry
	Text    *string `json:"text,omitempty"`
	Usage   *Usage  `json:"usage,omitempty"`
	Error   string  `json:"error,omitempty"`
	Attempt int     `json:"attempt,omitempty"`
	WaitMS  *int64  `json:"wait_ms,omitempty"`

	// end
	Status       string   `json:"status,omitempty"`
	Turns        *int     `json:"turns,omitempty"`
	ToolCalls    *int     `json:"tool_calls,omitempty"`
	Denials      int      `json:"denials,omitempty"` // calls the policy refused
	InputTokens  *int64   `json:"input_tokens,omitempty"`
	OutputTokens *int64   `json:"output_tokens,omitempty"`
	ElapsedMS    *int64   `json:"elapsed_ms,omitempty"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`
	// TraceID is, on the end line, the run's OpenTelemetry trace id;
	// absent without telemetry.
	TraceID string    `json:"trace_id,omitempty"`
	Pending []Pending `json:"pending,omitempty"`

	// compaction
	TokensBefore       *int `json:"tokens_before,omitempty"`
	TokensAfter        *int `json:"tokens_after,omitempty"`
	TurnsSummarised    *int `json:"turns_summarised,omitempty"`
	MessagesSummarised *int `json:"messages_summarised,omitempty"`
	MessagesKept       *int `json:"messages_kept,omitempty"`

	// Truncated gives the full size in bytes of each field cut to its cap.
	Truncated map[string]int `json:"truncated,omitempty"`

	// Redacted replaces a line that held a secret it could not cut out.
	Redacted string `json:"redacted,omitempty"`
}

// Usage is the tokens of one model request.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// PromptPart is one named piece of a run's system prompt: "base" (or
// "replace" for --system-prompt), "headless", "append", or
// "context-file PATH". The system prompt is the parts' texts joined by a
// blank line.
type PromptPart struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Pending is a tool call a deferred run left for a person to approve or
// deny: its id, tool, the fact the policy matched, the rule that asked,
// every fact that needs approval, and the diff a write or edit would make.
type Pending struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
	Fact string `json:"fact"`
	Rule string `json:"rule"`
	// Facts are all the facts of the call that need approval, as
	// "kind: value" in the order the policy found them, when there are
	// more than one; an approval of the call covers these and nothing
	// else. Nil for a call of one fact, Fact, and in a session written
	// before they were listed (see [Pending.Asked]).
	Facts []PendingFact   `json:"facts,omitempty"`
	Diff  string          `json:"diff,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// PendingFact is one fact of a pending call that needs approval, as
// "kind: value", and the rule that asked.
type PendingFact struct {
	Fact string `json:"fact"`
	Rule string `json:"rule"`
}

// Asked returns the facts of the call that need approval: Facts, or the
// one Fact of a call from a session written before Facts were recorded.
func (p Pending) Asked() []PendingFact {
	if len(p.Facts) > 0 {
		return p.Facts
	}
	return []PendingFact{{Fact: p.Fact, Rule: p.Rule}}
}

// Block is a message block as a session line holds it: the neutral
// [llm.Block] with wire-style names.
type Block struct {
	Type      string          `json:"type"` // text, thinking, redacted_thinking, tool_use, tool_result
	Text      string          `json:"text,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// Blocks converts a message's blocks to their line form.
func Blocks(bs []llm.Block) []Block {
	out := make([]Block, len(bs))
	for i, b := range bs {
		lb := Block{Type: b.Kind.String()}
		switch b.Kind {
		case llm.BlockText:
			lb.Text = b.Text
		case llm.BlockThinking:
			lb.Text, lb.Signature = b.Text, b.Signature
		case llm.BlockRedactedThinking:
			lb.Data = b.Data
		case llm.BlockToolUse:
			lb.ID, lb.Name, lb.Input = b.ID, b.Name, b.Input
		case llm.BlockToolResult:
			c := b.Content
			lb.ToolUseID, lb.Content, lb.IsError = b.ToolUseID, &c, b.IsError
		}
		out[i] = lb
	}
	return out
}

// LLM converts a line block back to a message block; ok is false for a
// type this version does not know.
func (b Block) LLM() (llm.Block, bool) {
	switch b.Type {
	case "text":
		return llm.TextBlock(b.Text), true
	case "thinking":
		return llm.ThinkingBlock(b.Text, b.Signature), true
	case "redacted_thinking":
		return llm.Block{Kind: llm.BlockRedactedThinking, Data: b.Data}, true
	case "tool_use":
		in := b.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		return llm.ToolUseBlock(b.ID, b.Name, in), true
	case "tool_result":
		c := ""
		if b.Content != nil {
			c = *b.Content
		}
		return llm.ToolResultBlock(b.ToolUseID, c, b.IsError), true
	}
	return llm.Block{}, false
}

// CapUTF8 returns at most max bytes of s, cut at a rune boundary, and
// whether it cut.
func CapUTF8(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// Stamp is a line's time: UTC, milliseconds.
func Stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// Ptr returns a pointer to v, for the optional fields of a [Line].
func Ptr[T any](v T) *T { return &v }

// cutField cuts *s to max bytes, noting the cut in l.
func (l *Line) cutField(field string, s *string, max int) {
	if s == nil {
		return
	}
	if c, ok := CapUTF8(*s, max); ok {
		if l.Truncated == nil {
			l.Truncated = map[string]int{}
		}
		l.Truncated[field] = len(*s)
		*s = c
	}
}

// capFields cuts the text fields of a record line that exceed their caps
// (after redaction), noting each cut.
func (l *Line) capFields() {
	max := FieldMax
	if l.Type == TypeMessage || l.Type == TypeCompaction {
		max = TextMax // a compaction's text is restored on resume
	}
	l.cutField("text", l.Text, max)
	l.cutField("prompt", l.Prompt, PromptMax)
	l.cutField("fact", &l.Fact, FieldMax)
	l.cutField("reason", &l.Reason, FieldMax)
	l.cutField("error", &l.Error, FieldMax)
}
