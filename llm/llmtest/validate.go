package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// checkRequest returns the first rule of the protocol that body breaks, or
// "". It enforces what the real APIs reject with a 400, so that a test
// fails the way production would: a streaming request, and every tool call
// of an assistant message answered by exactly one tool result right after
// it (Anthropic also: max_tokens, thinking limits, tool inputs are objects,
// no empty message, text block or error result, signed thinking blocks).
func checkRequest(proto protocol, body []byte) string {
	var req struct {
		Stream   bool              `json:"stream"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "body is not a JSON object: " + err.Error()
	}
	if !req.Stream {
		return `"stream" is not true`
	}
	if msg := checkFormat(proto, body); msg != "" {
		return msg
	}
	if proto == responses {
		return checkResponses(body)
	}
	if len(req.Messages) == 0 {
		return "messages: empty"
	}
	if proto == anthropic {
		if msg := checkAnthropicParams(body); msg != "" {
			return msg
		}
		return checkAnthropic(req.Messages)
	}
	return checkOpenAI(req.Messages)
}

// checkAnthropicParams checks the Messages API's top-level parameters:
// max_tokens is required, at most four blocks have cache_control, and
// extended thinking needs a budget of at least
// 1024 tokens below max_tokens and refuses a temperature.
func checkAnthropicParams(body []byte) string {
	var p struct {
		MaxTokens   int             `json:"max_tokens"`
		Temperature json.RawMessage `json:"temperature"`
		Thinking    *struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return "body: " + err.Error()
	}
	if p.MaxTokens < 1 {
		return "max_tokens: Field required (a positive integer)"
	}
	// A key "cache_control" cannot occur inside a JSON string, where its
	// quotes are escaped.
	if n := bytes.Count(body, []byte(`"cache_control"`)); n > 4 {
		return fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", n)
	}
	if p.Thinking == nil || p.Thinking.Type != "enabled" {
		return ""
	}
	switch b := p.Thinking.BudgetTokens; {
	case b < 1024:
		return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
	case p.MaxTokens <= b:
		return "max_tokens must be greater than thinking.budget_tokens"
	}
	if len(p.Temperature) > 0 && string(p.Temperature) != "null" && string(p.Temperature) != "1" {
		return "temperature may only be set to 1 when thinking is enabled"
	}
	return ""
}

type antMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type antBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Signature string          `json:"signature"`
}

// isEmptyContent reports whether a content field is missing, "", or [].
func isEmptyContent(raw json.RawMessage) bool {
	switch t := string(bytes.TrimSpace(raw)); t {
	case "", "null", `""`, "[]":
		return true
	}
	return false
}

func checkAnthropic(raw []json.RawMessage) string {
	var pending []string // tool_use ids awaiting results in the next message
	for i, r := range raw {
		var m antMsg
		if err := json.Unmarshal(r, &m); err != nil {
			return fmt.Sprintf("messages.%d: %v", i, err)
		}
		if isEmptyContent(m.Content) && (m.Role != "assistant" || i != len(raw)-1) {
			return fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		var blocks []antBlock
		if len(m.Content) > 0 && m.Content[0] == '[' {
			if err := json.Unmarshal(m.Content, &blocks); err != nil {
				return fmt.Sprintf("messages.%d.content: %v", i, err)
			}
		}
		answered := map[string]bool{}
		var uses []string
		for j, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text == nil || *b.Text == "" {
					return fmt.Sprintf("messages.%d.content.%d: text content blocks must be non-empty", i, j)
				}
				if strings.TrimSpace(*b.Text) == "" {
					return fmt.Sprintf("messages.%d.content.%d: text content blocks must contain non-whitespace text", i, j)
				}
				// A prefill: the API continues it and refuses trailing whitespace.
				if m.Role == "assistant" && i == len(raw)-1 && j == len(blocks)-1 && strings.TrimRightFunc(*b.Text, unicode.IsSpace) != *b.Text {
					return "messages: final assistant content cannot end with trailing whitespace"
				}
			case "thinking":
				if b.Signature == "" {
					return fmt.Sprintf("messages.%d.content.%d.thinking.signature: Field required", i, j)
				}
			case "tool_use":
				if m.Role != "assistant" {
					return fmt.Sprintf("messages.%d.content.%d: tool_use in a %s message", i, j, m.Role)
				}
				if t := bytes.TrimSpace(b.Input); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
					return fmt.Sprintf("messages.%d.content.%d.input: input must be a JSON object", i, j)
				}
				uses = append(uses, b.ID)
			case "tool_result":
				if !contains(pending, b.ToolUseID) || answered[b.ToolUseID] {
					return fmt.Sprintf("messages.%d.content.%d: unexpected tool_use_id %q in tool_result blocks: each tool_result block must have a corresponding tool_use block in the previous message", i, j, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
				if b.IsError && isEmptyContent(b.Content) {
					return fmt.Sprintf("messages.%d.content.%d.tool_result: content cannot be empty if `is_error` is true", i, j)
				}
			}
		}
		if missing := unanswered(pending, answered); missing != "" {
			return fmt.Sprintf("messages.%d: tool_use ids were found without tool_result blocks immediately after: %s", i-1, missing)
		}
		pending = uses
	}
	if len(pending) > 0 {
		return "messages: the last assistant message's tool_use blocks have no tool_result blocks: " + strings.Join(pending, ", ")
	}
	return ""
}

func checkOpenAI(raw []json.RawMessage) string {
	var pending []string
	answered := map[string]bool{}
	for i, r := range raw {
		var m struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		}
		if err := json.Unmarshal(r, &m); err != nil {
			return fmt.Sprintf("messages[%d]: %v", i, err)
		}
		if m.Role == "tool" {
			if !contains(pending, m.ToolCallID) || answered[m.ToolCallID] {
				return fmt.Sprintf("messages[%d]: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id %q)", i, m.ToolCallID)
			}
			answered[m.ToolCallID] = true
			continue
		}
		if missing := unanswered(pending, answered); missing != "" {
			return fmt.Sprintf("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing: %s", i, missing)
		}
		pending, answered = nil, map[string]bool{}
		if m.Role == "assistant" {
			for _, c := range m.ToolCalls {
				pending = append(pending, c.ID)
			}
		}
	}
	// Tool calls left unanswered at the end would be answered by the model
	// itself; the API rejects that too.
	if missing := unanswered(pending, answered); missing != "" {
		return "messages: the last assistant message's tool calls have no tool messages: " + missing
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func unanswered(pending []string, answered map[string]bool) string {
	var missing []string
	for _, id := range pending {
		if !answered[id] {
			missing = append(missing, id)
		}
	}
	return strings.Join(missing, ", ")
}
