package llm

import (
	"path/filepath"
	"testing"
)

// TestAnthropicPrefillRequest pins the body of a request that ends with
// an assistant message: the API continues that text (prefill), so it is
// sent last, as it is, after the user's message.
func TestAnthropicPrefillRequest(t *testing.T) {
	t.Parallel()
	req := Request{Model: "test-model", MaxTokens: 1024, Messages: []Message{
		{Role: RoleUser, Content: []Block{TextBlock("explain")}},
		{Role: RoleAssistant, Content: []Block{TextBlock("The cause is a")}},
	}}
	got := sendRecorded(t, "anthropic/text.sse", func(url string) streamer {
		return NewAnthropic(AnthropicConfig{BaseURL: url, APIKey: "sk-test"})
	}, req)
	checkGolden(t, filepath.Join("..", "testdata", "sse", "anthropic", "request_prefill.golden.json"), indentJSON(t, got.body))
}

// TestPrefills pins which clients continue a final assistant message: the
// Anthropic wire without extended thinking (the API refuses a prefill
// with thinking on); the OpenAI wires do not offer it.
func TestPrefills(t *testing.T) {
	t.Parallel()
	ant := NewAnthropic(AnthropicConfig{APIKey: "k"})
	tests := map[string]struct {
		client any
		req    Request
		want   bool
	}{
		"anthropic":               {ant, Request{Model: "m"}, true},
		"anthropic with thinking": {ant, Request{Model: "m", ThinkingBudget: 2048}, false},
		"openai":                  {NewOpenAI(OpenAIConfig{APIKey: "k"}), Request{Model: "m"}, false},
		"responses":               {NewResponses(ResponsesConfig{APIKey: "k"}), Request{Model: "m"}, false},
	}
	for name, tc := range tests {
		p, ok := tc.client.(Prefiller)
		if got := ok && p.Prefills(tc.req); got != tc.want {
			t.Errorf("%s: prefills %v, want %v", name, got, tc.want)
		}
	}
}
