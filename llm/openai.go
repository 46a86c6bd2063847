package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// DefaultOpenAIBaseURL is the base URL of [OpenAIConfig] when none is set.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAIConfig configures an [OpenAIClient] for any endpoint speaking the
// Chat Completions protocol.
type OpenAIConfig struct {
	// Provider names the endpoint in errors: "openai", "openrouter",
	// "ollama", ...; default "openai".
	Provider string
	// BaseURL is the URL that /chat/completions is appended to, usually
	// ending in /v1; a bare host (https://api.openai.com,
	// http://localhost:11434) gets /v1 added. Default DefaultOpenAIBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization header
	// (Ollama, local servers).
	APIKey string
	// KeyVar names the variable the key came from, for an auth error's
	// hint; empty when not known.
	KeyVar     string
	Headers    map[string]string // extra headers, e.g. OpenRouter's HTTP-Referer
	HTTPClient *http.Client      // default: a client without timeout
	// MaxTokensField is "max_tokens" (default) or "max_completion_tokens",
	// which newer OpenAI models require.
	MaxTokensField string
	// NoStreamUsage leaves out stream_options.include_usage for servers
	// that reject it; usage is then whatever the server sends unasked.
	NoStreamUsage bool
	// ThoughtTags reads text between <thought> and </thought> at the start
	// of the content as thinking: Gemini's OpenAI-compatible endpoint sends
	// its thought summaries so.
	ThoughtTags bool
	// Clock is the time a retry-after HTTP date is measured from; nil
	// means [SystemClock]. Give it the clock given to [Retry].
	Clock Clock
	// Limits bound one answer's memory and idle time; HTTPClient's
	// CheckRedirect is replaced by one that follows only same-origin
	// redirects, so the key never reaches another host, port or scheme.
	Limits StreamLimits
}

// OpenAIClient streams from an OpenAI-compatible Chat Completions endpoint.
// It is safe for concurrent use.
type OpenAIClient struct {
	cfg  OpenAIConfig
	t    transport
	body bodyCache
}

// NewOpenAI returns a client for cfg.
func NewOpenAI(cfg OpenAIConfig) *OpenAIClient {
	if cfg.Provider == "" {
		cfg.Provider = "openai"
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	if cfg.MaxTokensField == "" {
		cfg.MaxTokensField = "max_tokens"
	}
	return &OpenAIClient{cfg: cfg, t: newTransport(transportOptions{
		Provider: cfg.Provider, Base: openAIBase(cfg.BaseURL), Path: "/chat/completions", Client: cfg.HTTPClient, Clock: cfg.Clock,
		Extra: cfg.Headers, KeyHeader: "authorization", KeyPrefix: "Bearer ", Key: cfg.APIKey, KeyVar: cfg.KeyVar,
		Limits: cfg.Limits,
	})}
}

// Stream sends req as POST {base}/chat/completions with stream: true and
// returns the answer's event stream. An HTTP error status or a network
// failure is returned here as an [*APIError]; failures inside the stream
// surface from [Stream.Err]. The caller must Close the stream.
func (c *OpenAIClient) Stream(ctx context.Context, req Request) (*Stream, error) {
	body, err := c.encode(req)
	if err != nil {
		return nil, err
	}
	dec := newOpenAIDecoder()
	if c.cfg.ThoughtTags {
		dec.thoughts = &thoughtSplitter{}
	}
	return c.t.stream(ctx, body, dec)
}

// Wire types of the request.
type (
	// oaiRequest is the whole body; the client writes it from its
	// parts (see encode), in this order.
	oaiRequest struct {
		oaiHead
		Messages []oaiMessage `json:"messages"`
		Tools    []oaiTool    `json:"tools,omitempty"`
		oaiOptions
	}
	oaiHead struct {
		Model string `json:"model"`
	}
	oaiOptions struct {
		MaxTokens           int               `json:"max_tokens,omitempty"`
		MaxCompletionTokens int               `json:"max_completion_tokens,omitempty"`
		Temperature         *float64          `json:"temperature,omitempty"`
		Stop                []string          `json:"stop,omitempty"`
		ReasoningEffort     string            `json:"reasoning_effort,omitempty"`
		ResponseFormat      *oaiRespFormat    `json:"response_format,omitempty"`
		Stream              bool              `json:"stream"`
		StreamOptions       *oaiStreamOptions `json:"stream_options,omitempty"`
	}
	// oaiRespFormat is structured output's response_format:
	// {"type":"json_schema","json_schema":{"name","schema","strict"}}.
	// Source: https://platform.openai.com/docs/guides/structured-outputs
	oaiRespFormat struct {
		Type       string        `json:"type"`
		JSONSchema oaiJSONSchema `json:"json_schema"`
	}
	oaiJSONSchema struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	}
	oaiStreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	oaiMessage struct {
		Role       string        `json:"role"`
		Content    *string       `json:"content"`
		ToolCalls  []oaiToolCall `json:"tool_calls,omitempty"`
		ToolCallID string        `json:"tool_call_id,omitempty"`
	}
	oaiToolCall struct {
		ID           string           `json:"id"`
		Type         string           `json:"type"`
		Function     oaiFunction      `json:"function"`
		ExtraContent *oaiExtraContent `json:"extra_content,omitempty"`
	}
	oaiFunction struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	oaiTool struct {
		Type     string         `json:"type"`
		Function oaiFunctionDef `json:"function"`
	}
	oaiFunctionDef struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
)

// encode translates req into the Chat Completions JSON body. The system
// prompt, the tool specs and the messages come from the client's
// [bodyCache] when the request repeats them.
func (c *OpenAIClient) encode(req Request) ([]byte, error) {
	w, err := c.settings(req)
	if err != nil {
		return nil, err
	}
	head, err := marshal(w.oaiHead)
	if err != nil {
		return nil, c.encodeErr(err)
	}
	opts, err := marshal(w.oaiOptions)
	if err != nil {
		return nil, c.encodeErr(err)
	}
	c.body.mu.Lock()
	defer c.body.mu.Unlock()
	parts := make([][]byte, 0, len(req.Messages)+1)
	if req.System != "" {
		system, err := c.body.head(req.System, c.encodeSystem)
		if err != nil {
			return nil, err
		}
		parts = append(parts, system)
	}
	if parts, err = c.body.messages(parts, req.Messages, c.encodeMessage); err != nil {
		return nil, err
	}
	var tools []byte
	if len(req.Tools) > 0 {
		if tools, err = c.body.toolSpecs(req.Tools, c.encodeTools); err != nil {
			return nil, err
		}
	}
	return joinBody(head, opts, member{key: "messages", parts: parts, array: true}, member{key: "tools", raw: tools}), nil
}

// encodeErr wraps an encoding error as the client's; nil stays nil.
func (c *OpenAIClient) encodeErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: encode request: %w", c.cfg.Provider, err)
}

// encodeSystem encodes the system prompt as the first chat message.
func (c *OpenAIClient) encodeSystem(system string) (json.RawMessage, error) {
	enc, err := marshal(oaiMessage{Role: "system", Content: &system})
	return enc, c.encodeErr(err)
}

// encodeTools encodes the tool specs.
func (c *OpenAIClient) encodeTools(specs []ToolSpec) ([]byte, error) {
	enc, err := marshal(wireOpenAITools(specs))
	return enc, c.encodeErr(err)
}

// encodeMessage encodes the chat messages m translates to, comma
// separated; nil when it sends none.
func (c *OpenAIClient) encodeMessage(m Message) ([]byte, error) {
	enc, err := encodeElements(appendOpenAIMessage(nil, m), marshal)
	return enc, c.encodeErr(err)
}

// settings are the parts of the body that are not the conversation or
// the tools.
func (c *OpenAIClient) settings(req Request) (oaiRequest, error) {
	w := oaiRequest{oaiHead: oaiHead{Model: req.Model}, oaiOptions: oaiOptions{
		Temperature:     req.Temperature,
		Stop:            req.StopSequences,
		ReasoningEffort: req.ReasoningEffort,
		Stream:          true,
	}}
	if f := req.Format; f != nil {
		w.ResponseFormat = &oaiRespFormat{Type: "json_schema", JSONSchema: oaiJSONSchema{Name: f.Name, Schema: f.Schema, Strict: f.Strict}}
	}
	if !c.cfg.NoStreamUsage {
		w.StreamOptions = &oaiStreamOptions{IncludeUsage: true}
	}
	switch c.cfg.MaxTokensField {
	case "max_tokens":
		w.MaxTokens = req.MaxTokens
	case "max_completion_tokens":
		w.MaxCompletionTokens = req.MaxTokens
	default:
		return w, fmt.Errorf("%s: unknown max tokens field %q (want max_tokens or max_completion_tokens)", c.cfg.Provider, c.cfg.MaxTokensField)
	}
	return w, nil
}

// wireOpenAITools returns the tool specs as sent.
func wireOpenAITools(specs []ToolSpec) []oaiTool {
	var tools []oaiTool
	for _, t := range specs {
		tools = append(tools, oaiTool{Type: "function", Function: oaiFunctionDef{Name: t.Name, Description: t.Description, Parameters: toolSchema(t)}})
	}
	return tools
}

// encodeOpenAIMessages translates the conversation to chat messages: the
// system prompt first; an assistant message's text joined into content
// (null when it has tool calls and no text: some servers refuse an empty
// string there) and its tool calls into tool_calls (arguments as streamed,
// empty becomes {});
// a user message's tool results as one role "tool" message each, in order,
// followed by its text, if any, as a user message. Thinking blocks are not
// sent back: the chat protocol has no place for them. The chat protocol has
// no error flag on tool results, so IsError is not sent. A tool call's
// thought signature (Gemini) goes back in its extra_content.
func encodeOpenAIMessages(system string, msgs []Message) []oaiMessage {
	out := make([]oaiMessage, 0, len(msgs)+1)
	if system != "" {
		out = append(out, oaiMessage{Role: "system", Content: &system})
	}
	for _, m := range msgs {
		out = appendOpenAIMessage(out, m)
	}
	return out
}

// appendOpenAIMessage appends the chat messages m translates to (see
// encodeOpenAIMessages): what one message sends depends on it alone.
func appendOpenAIMessage(out []oaiMessage, m Message) []oaiMessage {
	var text []string
	if m.Role != RoleAssistant {
		for _, b := range m.Content {
			switch b.Kind {
			case BlockText:
				text = append(text, b.Text)
			case BlockToolResult:
				content := b.Content
				out = append(out, oaiMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: &content})
			}
		}
		if len(text) > 0 {
			s := strings.Join(text, "\n\n")
			out = append(out, oaiMessage{Role: string(RoleUser), Content: &s})
		}
		return out
	}
	am := oaiMessage{Role: "assistant"}
	for _, b := range m.Content {
		switch b.Kind {
		case BlockText:
			if b.Text != "" {
				text = append(text, b.Text)
			}
		case BlockToolUse:
			args := string(b.Input)
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			tc := oaiToolCall{ID: b.ID, Type: "function", Function: oaiFunction{Name: b.Name, Arguments: args}}
			if b.Signature != "" {
				tc.ExtraContent = &oaiExtraContent{}
				tc.ExtraContent.Google.ThoughtSignature = b.Signature
			}
			am.ToolCalls = append(am.ToolCalls, tc)
		}
	}
	if len(text) > 0 || len(am.ToolCalls) == 0 {
		s := strings.Join(text, "")
		am.Content = &s
	}
	return append(out, am)
}

// openAIBase adds /v1 to a base URL that is a bare host: every
// OpenAI-compatible server serves the API under /v1 there. A URL with a
// path (/v1, /api/v1, /openai/v1, a gateway's route) is used as given.
func openAIBase(base string) string {
	base = strings.TrimRight(base, "/")
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" {
		return base
	}
	return base + "/v1"
}
