package llm

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerToolsOutOfToolLoop checks, for every recording with server
// tool blocks, that the tool loop sees only the client's tool calls while
// the server blocks keep their plain text and arrive as events.
func TestServerToolsOutOfToolLoop(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		toolUses    []string // names of the client tool calls
		serverTools int      // server tool blocks (calls and results)
		wantText    string   // in some server tool result's content
		isError     bool     // some result is an error
	}{
		"web_search":       {serverTools: 2, wantText: "Go 1.26 Release Notes <https://go.dev/doc/go1.26>"},
		"web_search_error": {serverTools: 2, wantText: "error: max_uses_exceeded", isError: true},
		"web_fetch":        {serverTools: 2, wantText: "Pipelines run agents headless."},
		"code_execution":   {serverTools: 5, wantText: "No such file or directory\nreturn code 2"},
		"mcp":              {serverTools: 4, wantText: "Tool result: Hello, World", isError: true},
		"tool_search":      {toolUses: []string{"get_weather"}, serverTools: 2, wantText: "get_weather"},
		"advisor":          {serverTools: 2, wantText: "Fix the failing test first"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			body := readFile(t, filepath.Join("..", "testdata", "sse", "anthropic", name+".sse"))
			s, evs := decodeString(t, "anthropic", string(body))
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			msg := s.Message()
			var names []string
			for _, b := range msg.ToolUses() {
				names = append(names, b.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.toolUses, ",") {
				t.Errorf("ToolUses = %v, want %v", names, tc.toolUses)
			}
			var server, events int
			var content []string
			isErr := false
			for _, b := range msg.Content {
				switch b.Kind {
				case BlockServerToolUse:
					server++
					if !json.Valid(b.Input) {
						t.Errorf("server tool input %q is not JSON", b.Input)
					}
				case BlockServerToolResult:
					server++
					content = append(content, b.Content)
					isErr = isErr || b.IsError
				}
			}
			for _, ev := range evs {
				if ev.Kind == EventServerTool {
					events++
				}
				if ev.Kind == EventToolUse && (ev.ToolUse.Kind != BlockToolUse) {
					t.Errorf("tool use event for %v", ev.ToolUse.Kind)
				}
			}
			if server != tc.serverTools || events != tc.serverTools {
				t.Errorf("%d server blocks, %d events, want %d", server, events, tc.serverTools)
			}
			if all := strings.Join(content, "\n"); !strings.Contains(all, tc.wantText) {
				t.Errorf("server results %q lack %q", all, tc.wantText)
			}
			if isErr != tc.isError {
				t.Errorf("is_error = %v, want %v", isErr, tc.isError)
			}
			if strings.Contains(msg.Text(), "srvtoolu") {
				t.Errorf("server tool data in the answer text: %q", msg.Text())
			}
		})
	}
}

func TestServerToolResultText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		block, want string
		isErr       bool
	}{
		"search results": {`{"type":"web_search_tool_result","tool_use_id":"s","content":[{"type":"web_search_result","title":"T","url":"https://u","encrypted_content":"SECRET","page_age":"x"}]}`,
			"T <https://u>", false},
		"mcp string":       {`{"type":"mcp_tool_result","tool_use_id":"m","is_error":true,"content":"boom"}`, "boom", true},
		"mcp parts":        {`{"type":"mcp_tool_result","tool_use_id":"m","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}},{"type":"text","text":"b"}]}`, "a\nb", false},
		"fetch error":      {`{"type":"web_fetch_tool_result","tool_use_id":"f","content":{"type":"web_fetch_tool_result_error","error_code":"url_not_accessible"}}`, "error: url_not_accessible", true},
		"fetch pdf":        {`{"type":"web_fetch_tool_result","tool_use_id":"f","content":{"type":"web_fetch_result","url":"https://u/a.pdf","content":{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0"}}}}`, "<https://u/a.pdf>", false},
		"redacted advisor": {`{"type":"advisor_tool_result","tool_use_id":"a","content":{"type":"advisor_redacted_result","encrypted_content":"SECRET"}}`, "", false},
		"upload":           {`{"type":"container_upload","file_id":"file_1"}`, "file file_1", false},
		"future result":    {`{"type":"memory_tool_result","tool_use_id":"x","content":{"type":"memory_result","text":"noted"}}`, "noted", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var cb antStartBlock
			if err := json.Unmarshal([]byte(tc.block), &cb); err != nil {
				t.Fatal(err)
			}
			b, ok := serverToolResult(&cb)
			if !ok || b.Kind != BlockServerToolResult || b.Name != cb.Type {
				t.Fatalf("serverToolResult = %+v, %v", b, ok)
			}
			if b.Content != tc.want || b.IsError != tc.isErr {
				t.Errorf("content %q is_error %v, want %q %v", b.Content, b.IsError, tc.want, tc.isErr)
			}
			if strings.Contains(b.Content, "SECRET") {
				t.Errorf("encrypted content leaked: %q", b.Content)
			}
		})
	}
}

func TestAdaptiveThinkingModels(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"claude-sonnet-4-6":                 true,
		"claude-opus-4-6-v1":                true,
		"us.anthropic.claude-opus-4-6-v1:0": true,
		"claude-opus-4-7":                   true,
		"claude-sonnet-5-5":                 true,
		"claude-opus-5":                     true,
		"claude-mythos-preview":             true,
		"claude-sonnet-4-5-20250929":        false,
		"claude-opus-4-20250514":            false,
		"claude-opus-4-1-20250805":          false,
		"claude-3-7-sonnet-20250219":        false,
		"claude-haiku-4-5-20251001":         false,
		"anthropic.claude-3-5-sonnet-v2:0":  false,
		"my-gateway-model":                  false,
		"claude-sonnet-latest":              false,
	}
	for model, want := range tests {
		if got := adaptiveThinking(model); got != want {
			t.Errorf("adaptiveThinking(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestAnthropicAdaptiveRequest(t *testing.T) {
	t.Parallel()
	temp := 0.5
	tests := map[string]struct {
		model, effort string
		budget        int
		thinking      string // the thinking field sent, or "" for none
		outputConfig  string
	}{
		"adaptive":              {model: "claude-sonnet-4-6", budget: 2048, thinking: `{"type":"adaptive"}`},
		"adaptive with effort":  {model: "claude-opus-5", budget: 1, effort: "medium", thinking: `{"type":"adaptive"}`, outputConfig: `{"effort":"medium"}`},
		"effort alone":          {model: "claude-opus-5", effort: "low", outputConfig: `{"effort":"low"}`},
		"budget form":           {model: "claude-sonnet-4-5", budget: 2048, effort: "high", thinking: `{"type":"enabled","budget_tokens":2048}`},
		"no thinking, no field": {model: "claude-sonnet-4-6"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req := simpleRequest()
			req.Model, req.ThinkingBudget, req.ReasoningEffort, req.Temperature = tc.model, tc.budget, tc.effort, &temp
			body, err := NewAnthropic(AnthropicConfig{}).encode(req)
			if err != nil {
				t.Fatal(err)
			}
			var w map[string]json.RawMessage
			if err := json.Unmarshal(body, &w); err != nil {
				t.Fatal(err)
			}
			if got := string(w["thinking"]); got != tc.thinking {
				t.Errorf("thinking = %s, want %s", got, tc.thinking)
			}
			if got := string(w["output_config"]); got != tc.outputConfig {
				t.Errorf("output_config = %s, want %s", got, tc.outputConfig)
			}
			if _, ok := w["temperature"]; ok != (tc.thinking == "") {
				t.Errorf("temperature sent = %v with thinking %s", ok, tc.thinking)
			}
		})
	}
}
