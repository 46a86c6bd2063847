package llm

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestStopCarriesResponseIdentity pins that the stop event of each
// protocol says which response the provider made and which model made it
// (the message start of Anthropic, every chunk of Chat Completions, the
// completed response of the Responses API), read from real recordings (copied from the corpus, testdata/sse/SOURCES.md);
// the telemetry's chat span reports them as gen_ai.response.id and
// gen_ai.response.model.
func TestStopCarriesResponseIdentity(t *testing.T) {
	cases := []struct {
		provider, file, id, model string
	}{
		{"anthropic", "anthropic/crush_bash_tool_0.sse", "msg_01VzT95Yg52yRncWMcaLrmfC", "claude-haiku-4-5-20251001"},
		{"openai", "openai/crush_bash_tool_0.sse", "chatcmpl-DUu766HHRJZGfCbzBIsqnXXbWbRg6", "gpt-4o-2024-08-06"},
		{"responses", "responses/fantasy_azure_simple_streaming_0.sse", "resp_019d0fbf74a564d6016a3c117e5b1c819382d1cf29a3ef79ce", "gpt-5-mini"},
	}
	for _, tc := range cases {
		t.Run(tc.provider, func(t *testing.T) {
			rec := readFile(t, filepath.Join("..", "testdata", "sse", tc.file))
			res := decodeAll(t, tc.provider, bytes.NewReader(rec), len(rec)+3)
			if res.err != "" || len(res.events) == 0 {
				t.Fatalf("decode: %s", res.err)
			}
			stop := res.events[len(res.events)-1]
			if stop.Kind != EventStop || stop.ResponseID != tc.id || stop.ResponseModel != tc.model {
				t.Errorf("last event %v id %q model %q, want stop id %q model %q", stop.Kind, stop.ResponseID, stop.ResponseModel, tc.id, tc.model)
			}
		})
	}
}
