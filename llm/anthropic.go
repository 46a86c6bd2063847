package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Defaults of [AnthropicConfig].
//
// DefaultAnthropicMaxTokens is the max_tokens of a request that does not set
// one. The API requires the field and cuts the answer there (stop reason
// max_tokens), and an agent writes whole files through one tool call, so
// the default is large: 32,000 is the output limit of the smallest current
// models (Claude Opus 4 and 4.1; Sonnet 4.x, Haiku 4.5 and Opus 4.5 allow
// 64,000) and the default of Anthropic's own coding agent. Billing counts
// only the tokens produced. Older Claude 3 models have lower limits, which
// the client uses for them (see [AnthropicConfig.DefaultMaxTokens]).
const (
	DefaultAnthropicBaseURL   = "https://api.anthropic.com"
	DefaultAnthropicVersion   = "2023-06-01"
	DefaultAnthropicMaxTokens = 32000
)

// AnthropicConfig configures an [AnthropicClient]. Zero fields take the
// defaults above; HTTPClient defaults to a client without timeout (the
// caller's context bounds the call).
type AnthropicConfig struct {
	BaseURL string // with or without a final /v1; default DefaultAnthropicBaseURL
	APIKey  string // sent as x-api-key; never appears in errors
	// KeyVar names the variable the key came from, for an auth error's
	// hint; empty when not known.
	KeyVar     string
	Version    string            // anthropic-version header
	Headers    map[string]string // extra headers, e.g. anthropic-beta
	HTTPClient *http.Client
	// PromptCaching marks the last tool spec, the system prompt and the
	// last block of the conversation with cache_control, so that each turn
	// of an agent loop reads the tools, the instructions and the turns
	// before it from the cache (a tenth of the input price) instead of
	// paying for them again. Writing to the cache costs a quarter more than
	// plain input, once.
	PromptCaching bool
	// DefaultMaxTokens is max_tokens when Request.MaxTokens is 0. Zero
	// means the model's output limit for the Claude 3 models that have a
	// lower one (4,096 for Claude 3 Haiku, Sonnet and Opus; 8,192 for
	// Claude 3.5), else DefaultAnthropicMaxTokens.
	DefaultMaxTokens int
	// Clock is the time a retry-after HTTP date is measured from; nil
	// means [SystemClock]. Give it the clock given to [Retry].
	Clock Clock
	// Limits bound one answer's memory and idle time; HTTPClient's
	// CheckRedirect is replaced by one that follows only same-origin
	// redirects, so the key never reaches another host, port or scheme.
	Limits StreamLimits
}

// AnthropicClient streams from the Anthropic Messages API. It is safe for
// concurrent use.
type AnthropicClient struct {
	cfg  AnthropicConfig
	t    transport
	body bodyCache
}

// NewAnthropic returns a client for cfg.
func NewAnthropic(cfg AnthropicConfig) *AnthropicClient {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultAnthropicBaseURL
	}
	if cfg.Version == "" {
		cfg.Version = DefaultAnthropicVersion
	}
	// The API lives under /v1; a base URL that names it already (as
	// OpenAI-style settings do) must not get a second one.
	base := strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/v1")
	return &AnthropicClient{cfg: cfg, t: newTransport(transportOptions{
		Provider: "anthropic", Base: base, Path: "/v1/messages", Client: cfg.HTTPClient, Clock: cfg.Clock,
		Extra: cfg.Headers, Fixed: map[string]string{"anthropic-version": cfg.Version},
		KeyHeader: "x-api-key", Key: cfg.APIKey, KeyVar: cfg.KeyVar,
		Limits: cfg.Limits,
	})}
}

// Stream sends req as POST {base}/v1/messages with stream: true and returns
// the answer's event stream. An HTTP error status or a network failure is
// returned here as an [*APIError]; failures inside the stream surface from
// [Stream.Err]. The caller must Close the stream.
func (c *AnthropicClient) Stream(ctx context.Context, req Request) (*Stream, error) {
	body, err := c.encode(req)
	if err != nil {
		return nil, err
	}
	return c.t.stream(ctx, body, &anthropicDecoder{})
}

// Wire types of the request.
type (
	// antRequest is the whole body; the client writes it from its
	// parts (see encode), in this order.
	antRequest struct {
		antHead
		System   json.RawMessage `json:"system,omitempty"`
		Messages []antMessage    `json:"messages"`
		Tools    []antTool       `json:"tools,omitempty"`
		antOptions
	}
	antHead struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
	}
	antOptions struct {
		Temperature   *float64      `json:"temperature,omitempty"`
		StopSequences []string      `json:"stop_sequences,omitempty"`
		Thinking      *antThinking  `json:"thinking,omitempty"`
		OutputConfig  *antOutputCfg `json:"output_config,omitempty"`
		Stream        bool          `json:"stream"`
	}
	antOutputCfg struct {
		Effort string         `json:"effort,omitempty"`
		Format *antFormatSpec `json:"format,omitempty"`
	}
	// antFormatSpec is structured output's output_config.format, GA on
	// the Messages API without a beta header (it replaced the beta's
	// top-level output_format): {"type":"json_schema","schema":{…}}.
	// Source: https://platform.claude.com/docs/en/build-with-claude/structured-outputs
	antFormatSpec struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	}
	antMessage struct {
		Role    Role       `json:"role"`
		Content []antBlock `json:"content"`
	}
	antBlock struct {
		Type         string          `json:"type"`
		Text         *string         `json:"text,omitempty"`
		ID           string          `json:"id,omitempty"`
		Name         string          `json:"name,omitempty"`
		Input        json.RawMessage `json:"input,omitempty"`
		ToolUseID    string          `json:"tool_use_id,omitempty"`
		Content      *string         `json:"content,omitempty"`
		IsError      bool            `json:"is_error,omitempty"`
		Thinking     *string         `json:"thinking,omitempty"`
		Signature    *string         `json:"signature,omitempty"`
		Data         string          `json:"data,omitempty"`
		CacheControl *antCache       `json:"cache_control,omitempty"`
	}
	antTool struct {
		Name         string          `json:"name"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl *antCache       `json:"cache_control,omitempty"`
	}
	antThinking struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens,omitempty"`
	}
	antCache struct {
		Type string `json:"type"`
	}
)

// ephemeral returns the cache breakpoint the API knows.
func ephemeral() *antCache { return &antCache{Type: "ephemeral"} }

// emptyObject is sent for non-object tool inputs. It is never modified.
var emptyObject = json.RawMessage(`{}`)

// encode translates req into the Messages API's JSON body. The system
// prompt, the tool specs and the messages but the last come from the
// client's [bodyCache] when the request repeats them.
func (c *AnthropicClient) encode(req Request) ([]byte, error) {
	w, err := c.settings(req)
	if err != nil {
		return nil, err
	}
	head, err := marshal(w.antHead)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	opts, err := marshal(w.antOptions)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	c.body.mu.Lock()
	defer c.body.mu.Unlock()
	var system, tools []byte
	if req.System != "" {
		if system, err = c.body.head(req.System, c.encodeSystem); err != nil {
			return nil, err
		}
	}
	if len(req.Tools) > 0 {
		if tools, err = c.body.toolSpecs(req.Tools, c.encodeTools); err != nil {
			return nil, err
		}
	}
	// The last message that is sent carries the conversation's cache
	// breakpoint: it is encoded afresh each time, the others once.
	last, lastEnc := len(req.Messages), []byte(nil)
	for last > 0 && lastEnc == nil {
		last--
		if lastEnc, err = encodeAnthropicMessage(req.Messages[last], c.cfg.PromptCaching); err != nil {
			return nil, err
		}
	}
	parts := make([][]byte, 0, last+1)
	for i, m := range req.Messages[:last] {
		enc, err := c.body.message(i, m, func(m Message) ([]byte, error) { return encodeAnthropicMessage(m, false) })
		if err != nil {
			return nil, err
		}
		if len(enc) > 0 {
			parts = append(parts, enc)
		}
	}
	c.body.forget(last)
	if lastEnc != nil {
		parts = append(parts, lastEnc)
	}
	return joinBody(head, opts, member{key: "system", raw: system}, member{key: "messages", parts: parts, array: true},
		member{key: "tools", raw: tools}), nil
}

// settings are the parts of the body that are not the conversation.
func (c *AnthropicClient) settings(req Request) (antRequest, error) {
	w := antRequest{antHead: antHead{Model: req.Model, MaxTokens: req.MaxTokens},
		antOptions: antOptions{Temperature: req.Temperature, StopSequences: req.StopSequences, Stream: true}}
	if w.MaxTokens <= 0 {
		w.MaxTokens = c.defaultMaxTokens(req.Model)
	}
	switch adaptive := adaptiveThinking(req.Model); {
	case req.ThinkingBudget > 0 && adaptive:
		w.Thinking, w.Temperature = &antThinking{Type: "adaptive"}, nil
	case req.ThinkingBudget > 0:
		if err := thinkingLimits(&w, req); err != nil {
			return w, err
		}
	}
	if req.ReasoningEffort != "" && adaptiveThinking(req.Model) {
		w.OutputConfig = &antOutputCfg{Effort: req.ReasoningEffort}
	}
	if req.Format != nil {
		if w.OutputConfig == nil {
			w.OutputConfig = &antOutputCfg{}
		}
		w.OutputConfig.Format = &antFormatSpec{Type: "json_schema", Schema: req.Format.Schema}
	}
	return w, nil
}

// encodeAnthropicMessage encodes m, with the conversation's cache
// breakpoint on its last block that may carry one when breakpoint is set;
// nil when nothing of it is sent.
func encodeAnthropicMessage(m Message, breakpoint bool) ([]byte, error) {
	// A message left without blocks is refused ("all messages must have
	// non-empty content"); the API joins the neighbours of one left out
	// when they share a role.
	blocks := encodeAnthropicBlocks(m.Content)
	if len(blocks) == 0 {
		return nil, nil
	}
	msg := []antMessage{{Role: m.Role, Content: blocks}}
	if breakpoint {
		markLastCacheable(msg)
	}
	enc, err := marshal(msg[0])
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	return enc, nil
}

// encodeSystem returns the system prompt as a string, or with prompt
// caching as one text block with a cache breakpoint; nil when empty.
func (c *AnthropicClient) encodeSystem(system string) (json.RawMessage, error) {
	if system == "" {
		return nil, nil
	}
	var v any = system
	if c.cfg.PromptCaching {
		v = []antBlock{{Type: "text", Text: &system, CacheControl: ephemeral()}}
	}
	raw, err := marshal(v)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode system prompt: %w", err)
	}
	return raw, nil
}

// encodeTools encodes the tool specs, the last with a cache breakpoint
// when prompt caching is on.
func (c *AnthropicClient) encodeTools(specs []ToolSpec) ([]byte, error) {
	raw, err := marshal(c.wireTools(specs))
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode tools: %w", err)
	}
	return raw, nil
}

// wireTools returns the tool specs as sent.
func (c *AnthropicClient) wireTools(specs []ToolSpec) []antTool {
	var tools []antTool
	for _, t := range specs {
		tools = append(tools, antTool{Name: t.Name, Description: t.Description, InputSchema: toolSchema(t)})
	}
	if c.cfg.PromptCaching && len(tools) > 0 {
		tools[len(tools)-1].CacheControl = ephemeral()
	}
	return tools
}

// markLastCacheable puts a cache breakpoint on the last block of the last
// message that may carry one (thinking blocks may not), so the next request
// finds the conversation up to here in the cache. With the system prompt
// and the tools that makes three breakpoints; the API allows four.
func markLastCacheable(msgs []antMessage) {
	if len(msgs) == 0 {
		return
	}
	blocks := msgs[len(msgs)-1].Content
	for i := len(blocks) - 1; i >= 0; i-- {
		if t := blocks[i].Type; t != "thinking" && t != "redacted_thinking" {
			blocks[i].CacheControl = ephemeral()
			return
		}
	}
}

// defaultMaxTokens returns max_tokens for a request to model that sets
// none.
func (c *AnthropicClient) defaultMaxTokens(model string) int {
	if c.cfg.DefaultMaxTokens > 0 {
		return c.cfg.DefaultMaxTokens
	}
	// Model names also come prefixed or suffixed by gateways
	// (anthropic.claude-3-5-sonnet-20240620-v1:0), hence Contains.
	switch {
	case strings.Contains(model, "claude-3-5-"):
		return 8192
	case strings.Contains(model, "claude-3-7-"):
		return DefaultAnthropicMaxTokens
	case strings.Contains(model, "claude-3-"):
		return 4096
	}
	return DefaultAnthropicMaxTokens
}

// Limits of extended thinking: the API rejects a budget below
// minThinkingBudget, and one that is not below max_tokens (thinking tokens
// are output tokens and count against max_tokens).
const (
	minThinkingBudget = 1024
	// minAnswerTokens is the room left for the answer when max_tokens is
	// raised above a thinking budget the default does not exceed.
	minAnswerTokens = 4096
)

// thinkingLimits turns thinking on in w for req.ThinkingBudget and keeps
// the request valid: the budget must be at least 1024 tokens and below
// max_tokens. A max_tokens the caller set too low is an error; the default
// is raised to the budget plus minAnswerTokens. Temperature is left out,
// since the API refuses it with thinking on.
func thinkingLimits(w *antRequest, req Request) error {
	budget := req.ThinkingBudget
	if budget < minThinkingBudget {
		return fmt.Errorf("anthropic: thinking budget %d is below the minimum of %d tokens", budget, minThinkingBudget)
	}
	if w.MaxTokens <= budget {
		if req.MaxTokens > 0 {
			return fmt.Errorf("anthropic: max tokens %d must be greater than the thinking budget %d", req.MaxTokens, budget)
		}
		w.MaxTokens = budget + minAnswerTokens
	}
	w.Thinking = &antThinking{Type: "enabled", BudgetTokens: budget}
	w.Temperature = nil
	return nil
}

// noOutput is sent for a tool result without content: the API refuses an
// empty error result, and an empty result tells the model nothing.
const noOutput = "(no output)"

// encodeAnthropicBlocks translates blocks to the wire, leaving out or
// mending what the API refuses: blank text blocks and unsigned thinking
// blocks (from another provider or a cut stream; the API checks the
// signature) are dropped, an empty tool result says noOutput, and a tool
// input that is not a JSON object is sent as {} (the call's result already
// told the model its arguments were invalid).
func encodeAnthropicBlocks(blocks []Block) []antBlock {
	out := make([]antBlock, 0, len(blocks))
	for i := range blocks {
		b := &blocks[i]
		switch b.Kind {
		case BlockText:
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			out = append(out, antBlock{Type: "text", Text: &b.Text})
		case BlockToolUse:
			input := b.Input
			if !isJSONObject(input) {
				input = emptyObject
			}
			out = append(out, antBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: input})
		case BlockToolResult:
			content := &b.Content
			if strings.TrimSpace(b.Content) == "" {
				content = new(noOutput)
			}
			out = append(out, antBlock{Type: "tool_result", ToolUseID: b.ToolUseID, Content: content, IsError: b.IsError})
		case BlockThinking:
			if b.Signature == "" {
				continue
			}
			out = append(out, antBlock{Type: "thinking", Thinking: &b.Text, Signature: &b.Signature})
		case BlockRedactedThinking:
			out = append(out, antBlock{Type: "redacted_thinking", Data: b.Data})
		}
	}
	return out
}
