package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ResponsesConfig configures a [ResponsesClient] for an endpoint speaking
// OpenAI's Responses API.
type ResponsesConfig struct {
	// Provider names the endpoint in errors; default "openai".
	Provider string
	// BaseURL is the URL that /responses is appended to, usually ending in
	// /v1; default DefaultOpenAIBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization
	// header.
	APIKey string
	// KeyVar names the variable the key came from, for an auth error's
	// hint; empty when not known.
	KeyVar     string
	Headers    map[string]string // extra headers
	HTTPClient *http.Client      // default: a client without timeout
	// ReasoningSummary is reasoning.summary for reasoning models: "auto"
	// (default), "concise", "detailed", or "none" to ask for none (some
	// organisations must be verified to receive summaries).
	ReasoningSummary string
	// Clock is the time a retry-after HTTP date is measured from; nil
	// means [SystemClock]. Give it the clock given to [Retry].
	Clock Clock
	// Limits bound one answer's memory and idle time; see
	// [AnthropicConfig.Limits].
	Limits StreamLimits
}

// ResponsesClient streams from OpenAI's Responses API (POST /responses),
// the only API of some models (the Codex and -pro models) and the one
// where OpenAI's reasoning features arrive first. It keeps no state on the
// server: every request is sent with store: false and the whole
// conversation, and a reasoning model's encrypted reasoning comes back as
// [BlockReasoning] blocks that the next request carries. It is safe for
// concurrent use.
type ResponsesClient struct {
	cfg  ResponsesConfig
	t    transport
	body bodyCache
}

// NewResponses returns a client for cfg.
func NewResponses(cfg ResponsesConfig) *ResponsesClient {
	if cfg.Provider == "" {
		cfg.Provider = "openai"
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	if cfg.ReasoningSummary == "" {
		cfg.ReasoningSummary = "auto"
	}
	return &ResponsesClient{cfg: cfg, t: newTransport(transportOptions{
		Provider: cfg.Provider, Base: openAIBase(cfg.BaseURL), Path: "/responses", Client: cfg.HTTPClient, Clock: cfg.Clock,
		Extra: cfg.Headers, KeyHeader: "authorization", KeyPrefix: "Bearer ", Key: cfg.APIKey, KeyVar: cfg.KeyVar,
		Limits: cfg.Limits,
	})}
}

// Stream sends req as POST {base}/responses with stream: true and returns
// the answer's event stream. Request.StopSequences and ThinkingBudget are
// not sent (the API has no such fields); Temperature is not sent to
// reasoning models, which refuse it. An HTTP error status or a network
// failure is returned here as an [*APIError]; failures inside the stream
// surface from [Stream.Err]. The caller must Close the stream.
func (c *ResponsesClient) Stream(ctx context.Context, req Request) (*Stream, error) {
	body, err := c.encode(req)
	if err != nil {
		return nil, err
	}
	return c.t.stream(ctx, body, newResponsesDecoder())
}

// Wire types of the request.
type (
	// respRequest is the whole body; the client writes it from its
	// parts (see encode), in this order.
	respRequest struct {
		respHead
		Instructions string     `json:"instructions,omitempty"`
		Input        []respItem `json:"input"`
		Tools        []respTool `json:"tools,omitempty"`
		respOptions
	}
	respHead struct {
		Model string `json:"model"`
	}
	respOptions struct {
		MaxOutputTokens int            `json:"max_output_tokens,omitempty"`
		Temperature     *float64       `json:"temperature,omitempty"`
		Reasoning       *respReasoning `json:"reasoning,omitempty"`
		Include         []string       `json:"include,omitempty"`
		Text            *respText      `json:"text,omitempty"`
		Store           bool           `json:"store"`
		Stream          bool           `json:"stream"`
	}
	// respText carries structured output's text.format:
	// {"type":"json_schema","name","schema","strict"}, flat, unlike
	// Chat Completions' response_format.
	// Source: https://platform.openai.com/docs/api-reference/responses/create
	respText struct {
		Format respFormat `json:"format"`
	}
	respFormat struct {
		Type   string          `json:"type"`
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	}
	respReasoning struct {
		Effort  string `json:"effort,omitempty"`
		Summary string `json:"summary,omitempty"`
	}
	// respItem is one input item: a message, a function call, its output
	// or a reasoning item.
	respItem struct {
		Type             string         `json:"type"`
		Role             string         `json:"role,omitempty"`
		Content          string         `json:"content,omitempty"`
		ID               string         `json:"id,omitempty"`
		CallID           string         `json:"call_id,omitempty"`
		Name             string         `json:"name,omitempty"`
		Arguments        string         `json:"arguments,omitempty"`
		Output           *string        `json:"output,omitempty"`
		Summary          *[]respSummary `json:"summary,omitempty"`
		EncryptedContent string         `json:"encrypted_content,omitempty"`
	}
	respSummary struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	respTool struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	}
)

// encryptedReasoning is what a stateless request asks to get back so that
// reasoning carries across turns.
const encryptedReasoning = "reasoning.encrypted_content"

// encode translates req into the Responses API's JSON body, HTML
// characters escaped as json.Marshal does. The instructions, the tool
// specs and the messages come from the client's [bodyCache] when the
// request repeats them.
func (c *ResponsesClient) encode(req Request) ([]byte, error) {
	w := c.settings(req)
	head, err := json.Marshal(w.respHead)
	if err != nil {
		return nil, c.encodeErr(err)
	}
	opts, err := json.Marshal(w.respOptions)
	if err != nil {
		return nil, c.encodeErr(err)
	}
	c.body.mu.Lock()
	defer c.body.mu.Unlock()
	var system, tools []byte
	if req.System != "" {
		if system, err = c.body.head(req.System, c.encodeInstructions); err != nil {
			return nil, err
		}
	}
	input, err := c.body.messages(make([][]byte, 0, len(req.Messages)), req.Messages, c.encodeMessage)
	if err != nil {
		return nil, err
	}
	if len(req.Tools) > 0 {
		if tools, err = c.body.toolSpecs(req.Tools, c.encodeTools); err != nil {
			return nil, err
		}
	}
	return joinBody(head, opts, member{key: "instructions", raw: system}, member{key: "input", parts: input, array: true},
		member{key: "tools", raw: tools}), nil
}

// settings are the parts of the body that are not the instructions, the
// conversation or the tools.
func (c *ResponsesClient) settings(req Request) respRequest {
	w := respRequest{respHead: respHead{Model: req.Model}, respOptions: respOptions{
		MaxOutputTokens: req.MaxTokens,
		Temperature:     req.Temperature,
		Stream:          true,
	}}
	if isReasoningModel(req.Model) || req.ReasoningEffort != "" {
		w.Reasoning = &respReasoning{Effort: req.ReasoningEffort}
		if s := c.cfg.ReasoningSummary; s != "none" {
			w.Reasoning.Summary = s
		}
		w.Include = []string{encryptedReasoning}
		w.Temperature = nil
	}
	if f := req.Format; f != nil {
		w.Text = &respText{Format: respFormat{Type: "json_schema", Name: f.Name, Schema: f.Schema, Strict: f.Strict}}
	}
	return w
}

// encodeErr wraps an encoding error as the client's; nil stays nil.
func (c *ResponsesClient) encodeErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: encode request: %w", c.cfg.Provider, err)
}

// encodeInstructions encodes the system prompt as instructions.
func (c *ResponsesClient) encodeInstructions(system string) (json.RawMessage, error) {
	enc, err := json.Marshal(system)
	return enc, c.encodeErr(err)
}

// wireResponsesTools returns the tool specs as sent.
func wireResponsesTools(specs []ToolSpec) []respTool {
	var tools []respTool
	for _, t := range specs {
		tools = append(tools, respTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: toolSchema(t)})
	}
	return tools
}

// encodeTools encodes the tool specs.
func (c *ResponsesClient) encodeTools(specs []ToolSpec) ([]byte, error) {
	enc, err := json.Marshal(wireResponsesTools(specs))
	return enc, c.encodeErr(err)
}

// encodeMessage encodes the input items m translates to, comma
// separated; nil when it sends none.
func (c *ResponsesClient) encodeMessage(m Message) ([]byte, error) {
	enc, err := encodeElements(appendResponsesItems(nil, m), json.Marshal)
	return enc, c.encodeErr(err)
}

// encodeResponsesInput translates the conversation to input items: a user
// message's tool results as function_call_output items, then its text as
// one user message; an assistant message's blocks in order, adjacent text
// joined into one assistant message, tool calls as function_call items
// (arguments as streamed, empty becomes {}) and reasoning items with their
// encrypted content. Reasoning without encrypted content (a cut stream)
// and other providers' thinking are left out: the API could not resolve
// them without stored state; so is reasoning that ends a message, which
// the API refuses without the item it led to. Items carry no ids but a reasoning item's,
// which the API requires.
func encodeResponsesInput(msgs []Message) []respItem {
	out := make([]respItem, 0, len(msgs))
	for _, m := range msgs {
		out = appendResponsesItems(out, m)
	}
	return out
}

// appendResponsesItems appends the input items m translates to (see
// encodeResponsesInput): what one message sends depends on it alone,
// since the items before it never end with reasoning.
func appendResponsesItems(out []respItem, m Message) []respItem {
	var text []string
	flush := func(role, sep string) {
		if len(text) > 0 {
			out = append(out, respItem{Type: "message", Role: role, Content: strings.Join(text, sep)})
			text = text[:0]
		}
	}
	if m.Role != RoleAssistant {
		for _, b := range m.Content {
			switch b.Kind {
			case BlockText:
				text = append(text, b.Text)
			case BlockToolResult:
				content := b.Content
				out = append(out, respItem{Type: "function_call_output", CallID: b.ToolUseID, Output: &content})
			}
		}
		flush(string(RoleUser), "\n\n")
		return out
	}
	start := len(out)
	for _, b := range m.Content {
		switch b.Kind {
		case BlockText:
			if b.Text != "" {
				text = append(text, b.Text)
			}
		case BlockToolUse:
			flush(string(RoleAssistant), "")
			args := string(b.Input)
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			out = append(out, respItem{Type: "function_call", CallID: b.ID, Name: b.Name, Arguments: args})
		case BlockReasoning:
			if b.Data == "" {
				continue
			}
			flush(string(RoleAssistant), "")
			summary := []respSummary{}
			if b.Text != "" {
				summary = append(summary, respSummary{Type: "summary_text", Text: b.Text})
			}
			out = append(out, respItem{Type: "reasoning", ID: b.ID, Summary: &summary, EncryptedContent: b.Data})
		}
	}
	flush(string(RoleAssistant), "")
	// The API refuses a reasoning item without the item it led to (an
	// answer cut after its reasoning).
	for len(out) > start && out[len(out)-1].Type == "reasoning" {
		out = out[:len(out)-1]
	}
	return out
}

// isReasoningModel reports whether model is one of OpenAI's reasoning
// models (o1, o3, o4, gpt-5 and its codex variants, codex-mini, gpt-oss),
// which take reasoning settings and refuse temperature. A gateway prefix
// ("openai/") is ignored; the gpt-5 chat models are not reasoning models.
func isReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if strings.Contains(m, "-chat") {
		return false
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex", "gpt-oss"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// ResponsesOnly reports whether model is served only by the Responses API
// and not by Chat Completions: the Codex models (gpt-5-codex,
// gpt-5.1-codex-max, codex-mini-latest, ...), the -pro reasoning models
// (o1-pro, o3-pro, gpt-5-pro, gpt-5.2-pro), the deep-research models and
// computer-use-preview. A gateway prefix ("openai/") is ignored.
func ResponsesOnly(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	switch {
	case strings.Contains(m, "codex"), strings.Contains(m, "deep-research"),
		strings.HasPrefix(m, "computer-use"):
		return true
	}
	// -pro as a name part: o3-pro, gpt-5-pro-2025-10-06, gpt-5.2-pro.
	for _, part := range strings.Split(m, "-") {
		if part == "pro" {
			return isReasoningModel(m)
		}
	}
	return false
}
