package llm

import "encoding/json"

// Role says who wrote a [Message].
type Role string

// The two roles of a conversation. System instructions travel in
// [Request.System], and tool results are blocks of a user message.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockKind is the type of a [Block].
type BlockKind uint8

// The kinds of block a message can hold.
const (
	BlockText BlockKind = iota + 1
	BlockToolUse
	BlockToolResult
	BlockThinking
	BlockRedactedThinking
	// BlockServerToolUse is a call of a tool the provider runs itself
	// (Anthropic's server tools: web search, web fetch, code execution,
	// tool search, the advisor, an MCP connector's tools).
	BlockServerToolUse
	// BlockServerToolResult is the result of a server tool call.
	BlockServerToolResult
	// BlockReasoning is an OpenAI Responses API reasoning item.
	BlockReasoning
)

// String returns the wire-style name of k, such as "tool_use".
func (k BlockKind) String() string {
	switch k {
	case BlockText:
		return "text"
	case BlockToolUse:
		return "tool_use"
	case BlockToolResult:
		return "tool_result"
	case BlockThinking:
		return "thinking"
	case BlockRedactedThinking:
		return "redacted_thinking"
	case BlockServerToolUse:
		return "server_tool_use"
	case BlockServerToolResult:
		return "server_tool_result"
	case BlockReasoning:
		return "reasoning"
	}
	return "unknown"
}

// Block is one piece of a message. Kind says which fields are meaningful:
//
//   - BlockText: Text.
//   - BlockToolUse: ID, Name, Input. Input holds the arguments exactly as the
//     model streamed them and may be invalid JSON or not an object; the
//     caller validates it (and answers with an error result). An empty input
//     is normalised to {}. Signature holds Gemini's thought signature of the
//     call, when it sent one, to be sent back with it.
//   - BlockToolResult: ToolUseID, Content, IsError.
//   - BlockThinking: Text (the reasoning) and Signature. Anthropic requires
//     thinking blocks to be sent back unchanged in tool-use turns.
//   - BlockRedactedThinking: Data, the opaque payload to send back unchanged.
//   - BlockServerToolUse: ID, Name (the tool, such as "web_search"), Input.
//     The provider ran it; it is not one of [Message.ToolUses] and needs no
//     result from the caller.
//   - BlockServerToolResult: ToolUseID, Name (the wire type, such as
//     "web_search_tool_result"), Content (the result's plain text: search
//     result titles and URLs, fetched text, program output, advisor text),
//     IsError.
//   - BlockReasoning: ID, Text (the reasoning summary) and Data (the
//     encrypted reasoning, sent back unchanged in later turns).
//
// Server tool blocks are kept for display and logs; neither client sends
// them back (the Anthropic API accepts a conversation without them, and
// their results are already reflected in the answer's text).
type Block struct {
	Kind BlockKind

	Text string // BlockText, BlockThinking

	ID    string          // BlockToolUse
	Name  string          // BlockToolUse
	Input json.RawMessage // BlockToolUse

	ToolUseID string // BlockToolResult
	Content   string // BlockToolResult
	IsError   bool   // BlockToolResult

	Signature string // BlockThinking; BlockToolUse (Gemini)
	Data      string // BlockRedactedThinking, BlockReasoning
}

// TextBlock returns a text block.
func TextBlock(text string) Block { return Block{Kind: BlockText, Text: text} }

// ToolUseBlock returns a tool-use block for the call id of tool name.
func ToolUseBlock(id, name string, input json.RawMessage) Block {
	return Block{Kind: BlockToolUse, ID: id, Name: name, Input: input}
}

// ToolResultBlock returns the result of the tool call toolUseID.
func ToolResultBlock(toolUseID, content string, isError bool) Block {
	return Block{Kind: BlockToolResult, ToolUseID: toolUseID, Content: content, IsError: isError}
}

// ThinkingBlock returns a thinking block with its signature.
func ThinkingBlock(text, signature string) Block {
	return Block{Kind: BlockThinking, Text: text, Signature: signature}
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role
	Content []Block
}

// Text returns the concatenation of the message's text blocks.
func (m Message) Text() string {
	var n int
	for _, b := range m.Content {
		if b.Kind == BlockText {
			n += len(b.Text)
		}
	}
	buf := make([]byte, 0, n)
	for _, b := range m.Content {
		if b.Kind == BlockText {
			buf = append(buf, b.Text...)
		}
	}
	return string(buf)
}

// ToolUses returns the message's tool-use blocks in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Kind == BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

// ToolSpec describes a tool to the model. Schema is the JSON schema of the
// tool's arguments; empty means {"type":"object"}.
type ToolSpec struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// toolSchema returns t's schema, or {"type":"object"} when it has none.
func toolSchema(t ToolSpec) json.RawMessage {
	if len(t.Schema) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return t.Schema
}

// Request is one model call. Zero values mean "not set": the provider's
// default applies (for Anthropic, which requires max_tokens, the client's
// [AnthropicConfig.DefaultMaxTokens]).
type Request struct {
	Model         string
	System        string
	Messages      []Message
	Tools         []ToolSpec
	MaxTokens     int
	Temperature   *float64
	StopSequences []string
	// ThinkingBudget enables Anthropic extended thinking with this many
	// budget tokens when > 0. The API wants at least 1024, below
	// max_tokens: the client refuses a smaller budget or a MaxTokens not
	// above it, raises the default max tokens above it, and leaves
	// Temperature out (the API refuses it with thinking). Ignored by the
	// OpenAI clients. On a model with adaptive thinking (Claude 4.6 and
	// later, where the budget form is deprecated or refused) the client
	// sends thinking {"type":"adaptive"} instead, without a budget.
	ThinkingBudget int
	// ReasoningEffort is sent as OpenAI's reasoning_effort ("low", "medium",
	// "high") when not empty; the Responses client sends it as
	// reasoning.effort, and the Anthropic client as output_config.effort
	// with adaptive thinking.
	ReasoningEffort string
	// Format, when set, asks the provider to constrain the final answer
	// to a JSON schema in its native form (structured output); nil: the
	// answer is free text.
	Format *JSONFormat
}

// JSONFormat is a request for a final answer that is a JSON document
// matching Schema: OpenAI's response_format (Chat Completions) or
// text.format (Responses), Anthropic's output_config.format.
type JSONFormat struct {
	Name   string          // a name for the schema ([a-zA-Z0-9_-], OpenAI wants one)
	Schema json.RawMessage // the JSON Schema, as sent
	Strict bool            // OpenAI's strict mode: the schema is inside its subset
}

// Usage counts the tokens of one or more model calls.
//
// InputTokens are the input tokens billed at the full rate: for OpenAI it is
// prompt_tokens minus the cached tokens, so that for both providers the cost
// is InputTokens, OutputTokens, CacheCreationTokens and CacheReadTokens each
// times its own price. ReasoningTokens, where the provider reports them,
// are the part of OutputTokens spent on reasoning; they are not counted
// again in Total.
type Usage struct {
	InputTokens         int `json:"input_tokens"`
	OutputTokens        int `json:"output_tokens"`
	CacheCreationTokens int `json:"cache_creation_tokens,omitempty"`
	CacheReadTokens     int `json:"cache_read_tokens,omitempty"`
	ReasoningTokens     int `json:"reasoning_tokens,omitempty"`
}

// Add returns the field-wise sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:         u.InputTokens + v.InputTokens,
		OutputTokens:        u.OutputTokens + v.OutputTokens,
		CacheCreationTokens: u.CacheCreationTokens + v.CacheCreationTokens,
		CacheReadTokens:     u.CacheReadTokens + v.CacheReadTokens,
		ReasoningTokens:     u.ReasoningTokens + v.ReasoningTokens,
	}
}

// Minus returns the field-wise difference u - v.
func (u Usage) Minus(v Usage) Usage {
	return Usage{
		InputTokens:         u.InputTokens - v.InputTokens,
		OutputTokens:        u.OutputTokens - v.OutputTokens,
		CacheCreationTokens: u.CacheCreationTokens - v.CacheCreationTokens,
		CacheReadTokens:     u.CacheReadTokens - v.CacheReadTokens,
		ReasoningTokens:     u.ReasoningTokens - v.ReasoningTokens,
	}
}

// Total returns the number of all tokens counted.
func (u Usage) Total() int {
	return u.InputTokens + u.OutputTokens + u.CacheCreationTokens + u.CacheReadTokens
}

// StopReason says why the model stopped. Values other than the constants
// below are passed through from the provider unchanged.
type StopReason string

// The stop reasons every provider is mapped to.
const (
	StopEndTurn      StopReason = "end_turn"
	StopToolUse      StopReason = "tool_use"
	StopMaxTokens    StopReason = "max_tokens"
	StopStopSequence StopReason = "stop_sequence"
	StopRefusal      StopReason = "refusal"
)
