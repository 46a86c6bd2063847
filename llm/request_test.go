package llm

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// richRequest exercises every request field and block kind: a system
// prompt, two tools (one without schema), an assistant turn with thinking,
// text and three tool calls (one with arguments that are not JSON, one with
// empty arguments), and a user turn with three tool results (two errors,
// one of them without content) followed by text.
func richRequest() Request {
	temp := 0.2
	return Request{
		Model:  "test-model",
		System: "You are rubichan.",
		Tools: []ToolSpec{
			{Name: "read", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "ls", Description: "List a directory."},
		},
		Messages: []Message{
			{Role: RoleUser, Content: []Block{TextBlock("why did the build fail?"), TextBlock("<stdin>log</stdin>")}},
			{Role: RoleAssistant, Content: []Block{
				ThinkingBlock("Check the files.", "sig-1"),
				{Kind: BlockRedactedThinking, Data: "opaque=="},
				{Kind: BlockReasoning, ID: "rs_1", Text: "**Plan**\n\nRead main.go.", Data: "gAAAAencrypted=="},
				{Kind: BlockServerToolUse, ID: "srvtoolu_1", Name: "web_search", Input: json.RawMessage(`{"query":"x"}`)},
				{Kind: BlockServerToolResult, ToolUseID: "srvtoolu_1", Name: "web_search_tool_result", Content: "X <https://x.example>"},
				TextBlock("Let me look."),
				ToolUseBlock("call_1", "read", json.RawMessage(`{"path":"main.go"}`)),
				ToolUseBlock("call_2", "read", json.RawMessage(`{"path": "ma`)),
				ToolUseBlock("call_3", "ls", nil),
			}},
			{Role: RoleUser, Content: []Block{
				ToolResultBlock("call_1", "package main", false),
				ToolResultBlock("call_2", "invalid arguments: unexpected end of JSON input", true),
				ToolResultBlock("call_3", "", true),
				TextBlock("Also check go.mod."),
			}},
		},
		MaxTokens:       4096,
		Temperature:     &temp,
		StopSequences:   []string{"STOP"},
		ThinkingBudget:  2048,
		ReasoningEffort: "low",
	}
}

// indentJSON re-indents raw JSON for a readable golden file.
func indentJSON(t *testing.T, raw []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, raw)
	}
	return marshalGolden(t, v)
}

// requestSentCase is one case of TestRequestSent.
type requestSentCase struct {
	client     func(url string) streamer
	recording  string
	path       string
	golden     string
	header     map[string]string
	noHeader   []string
	mustAbsent []string // substrings the body must not contain
}

// requestSentCases returns the cases of TestRequestSent.
func requestSentCases() map[string]requestSentCase {
	return map[string]requestSentCase{
		"anthropic": {
			client: func(url string) streamer {
				return NewAnthropic(AnthropicConfig{BaseURL: url + "/", APIKey: "sk-ant-secret-123456", PromptCaching: true,
					Headers: map[string]string{"anthropic-beta": "interleaved-thinking-2025-05-14"}})
			},
			recording: "anthropic/text.sse", path: "/v1/messages", golden: "anthropic/request.golden.json",
			header: map[string]string{"x-api-key": "sk-ant-secret-123456", "anthropic-version": "2023-06-01",
				"content-type": "application/json", "anthropic-beta": "interleaved-thinking-2025-05-14"},
			noHeader:   []string{"authorization"},
			mustAbsent: []string{`"temperature"`, "gAAAAencrypted==", "srvtoolu_1"}, // temperature: refused with thinking on
		},
		"openai": {
			client: func(url string) streamer {
				return NewOpenAI(OpenAIConfig{Provider: "openrouter", BaseURL: url + "/api/v1", APIKey: "sk-or-secret-123456",
					Headers: map[string]string{"HTTP-Referer": "https://rubichan.dev"}, MaxTokensField: "max_completion_tokens"})
			},
			recording: "openai/text.sse", path: "/api/v1/chat/completions", golden: "openai/request.golden.json",
			header: map[string]string{"authorization": "Bearer sk-or-secret-123456", "content-type": "application/json",
				"http-referer": "https://rubichan.dev"},
			noHeader:   []string{"x-api-key"},
			mustAbsent: []string{"opaque==", "Check the files.", `"max_tokens"`, "gAAAAencrypted==", "srvtoolu_1"},
		},
		"responses": {
			client: func(url string) streamer {
				return NewResponses(ResponsesConfig{BaseURL: url + "/v1", APIKey: "sk-secret-123456",
					Headers: map[string]string{"OpenAI-Beta": "responses=v1"}})
			},
			recording: "responses/text.sse", path: "/v1/responses", golden: "responses/request.golden.json",
			header: map[string]string{"authorization": "Bearer sk-secret-123456", "content-type": "application/json",
				"openai-beta": "responses=v1"},
			noHeader:   []string{"x-api-key"},
			mustAbsent: []string{"opaque==", "Check the files.", `"temperature"`, `"stop"`, "srvtoolu_1", `"previous_response_id"`},
		},
		"ollama without key": {
			client: func(url string) streamer {
				return NewOpenAI(OpenAIConfig{Provider: "ollama", BaseURL: url + "/v1"})
			},
			recording: "openai/text.sse", path: "/v1/chat/completions", golden: "openai/request_ollama.golden.json",
			header:   map[string]string{"content-type": "application/json"},
			noHeader: []string{"authorization"},
		},
	}
}

func TestRequestSent(t *testing.T) {
	t.Parallel()
	tests := requestSentCases()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req := richRequest()
			switch name {
			case "ollama without key":
				req.Tools, req.Temperature, req.MaxTokens = nil, nil, 0
			case "responses":
				req.Model = "gpt-5-codex"
			}
			got := sendRecorded(t, tc.recording, tc.client, req)
			if got.path != tc.path {
				t.Errorf("path = %q, want %q", got.path, tc.path)
			}
			for k, v := range tc.header {
				if got.header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, got.header.Get(k), v)
				}
			}
			for _, k := range tc.noHeader {
				if got.header.Get(k) != "" {
					t.Errorf("header %s sent: %q", k, got.header.Get(k))
				}
			}
			for _, s := range tc.mustAbsent {
				if strings.Contains(string(got.body), s) {
					t.Errorf("body contains %s:\n%s", s, got.body)
				}
			}
			checkGolden(t, filepath.Join("..", "testdata", "sse", tc.golden), indentJSON(t, got.body))
		})
	}
}

func TestMaxTokensFieldInvalid(t *testing.T) {
	t.Parallel()
	c := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1", MaxTokensField: "max_tokenz"})
	_, err := c.Stream(context.Background(), simpleRequest())
	if err == nil || !strings.Contains(err.Error(), `unknown max tokens field "max_tokenz"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestAnthropicThinkingLimits(t *testing.T) {
	t.Parallel()
	temp := 0.3
	tests := map[string]struct {
		maxTokens, budget int
		defaultMax        int
		wantMax           int    // max_tokens sent
		wantErr           string // substring of the encode error
	}{
		"budget below max":            {maxTokens: 4096, budget: 2048, wantMax: 4096},
		"default above budget":        {budget: 2048, defaultMax: 8192, wantMax: 8192},
		"default raised above budget": {budget: 10000, defaultMax: 8192, wantMax: 10000 + minAnswerTokens},
		"default equal to budget":     {budget: 8192, defaultMax: 8192, wantMax: 8192 + minAnswerTokens},
		"max not above budget":        {maxTokens: 2048, budget: 2048, wantErr: "max tokens 2048 must be greater than the thinking budget 2048"},
		"budget below minimum":        {maxTokens: 4096, budget: 1023, wantErr: "thinking budget 1023 is below the minimum of 1024"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := NewAnthropic(AnthropicConfig{DefaultMaxTokens: tc.defaultMax})
			req := simpleRequest()
			req.MaxTokens, req.ThinkingBudget, req.Temperature = tc.maxTokens, tc.budget, &temp
			body, err := c.encode(req)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "anthropic: ") {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var w map[string]json.RawMessage
			if err := json.Unmarshal(body, &w); err != nil {
				t.Fatal(err)
			}
			if got := string(w["max_tokens"]); got != strconv.Itoa(tc.wantMax) {
				t.Errorf("max_tokens = %s, want %d", got, tc.wantMax)
			}
			if got, want := string(w["thinking"]), `{"type":"enabled","budget_tokens":`+strconv.Itoa(tc.budget)+`}`; got != want {
				t.Errorf("thinking = %s, want %s", got, want)
			}
			if _, ok := w["temperature"]; ok {
				t.Errorf("temperature sent with thinking: %s", w["temperature"])
			}
		})
	}
	// Without thinking the temperature is sent.
	req := simpleRequest()
	req.Temperature = &temp
	body, err := NewAnthropic(AnthropicConfig{}).encode(req)
	if err != nil || !strings.Contains(string(body), `"temperature":0.3`) {
		t.Errorf("temperature without thinking: %s (%v)", body, err)
	}
}
