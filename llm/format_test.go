package llm

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// formatRequest is a short request that asks for structured output.
func formatRequest() Request {
	return Request{
		Model:    "test-model",
		Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("classify this failure")}}},
		Tools: []ToolSpec{{Name: "read", Description: "Read a file.",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		MaxTokens: 1024,
		Format: &JSONFormat{Name: "triage", Strict: true,
			Schema: json.RawMessage(`{"type":"object","properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false}`)},
	}
}

// TestRequestFormat pins each wire's native structured-output field in a
// golden request body: Chat Completions' response_format, the Responses
// API's text.format, Anthropic's output_config.format.
func TestRequestFormat(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		client    func(url string) streamer
		recording string
		golden    string
		strict    bool
	}{
		"anthropic": {
			client:    func(url string) streamer { return NewAnthropic(AnthropicConfig{BaseURL: url + "/", APIKey: "k"}) },
			recording: "anthropic/text.sse", golden: "anthropic/request_format.golden.json",
		},
		"openai": {
			client: func(url string) streamer {
				return NewOpenAI(OpenAIConfig{Provider: "openai", BaseURL: url + "/v1", APIKey: "k", MaxTokensField: "max_completion_tokens"})
			},
			recording: "openai/text.sse", golden: "openai/request_format.golden.json", strict: true,
		},
		"openai not strict": {
			client: func(url string) streamer {
				return NewOpenAI(OpenAIConfig{Provider: "openai", BaseURL: url + "/v1", APIKey: "k", MaxTokensField: "max_completion_tokens"})
			},
			recording: "openai/text.sse", golden: "openai/request_format_loose.golden.json",
		},
		"responses": {
			client:    func(url string) streamer { return NewResponses(ResponsesConfig{BaseURL: url + "/v1", APIKey: "k"}) },
			recording: "responses/text.sse", golden: "responses/request_format.golden.json", strict: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req := formatRequest()
			req.Format.Strict = tc.strict
			got := sendRecorded(t, tc.recording, tc.client, req)
			checkGolden(t, filepath.Join("..", "testdata", "sse", tc.golden), indentJSON(t, got.body))
		})
	}
}
