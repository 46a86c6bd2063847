package llm

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// respSSE builds a Responses stream from data payloads, each naming its
// type as the API does.
func respSSE(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

func decodeResponses(t *testing.T, body string) (*Stream, []Event) {
	t.Helper()
	s := newStream("openai", io.NopCloser(strings.NewReader(body)), newResponsesDecoder(), nil)
	return s, drain(t, s)
}

const (
	respMsgAdded = `{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"m"}}`
	respDone     = `{"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":2}}}`
)

func TestResponsesProtocolViolations(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ body, want string }{
		"delta for unannounced item": {respSSE(`{"type":"response.output_text.delta","output_index":0,"delta":"x"}`),
			"response.output_text.delta for unknown output item 0"},
		"item out of order": {respSSE(`{"type":"response.output_item.added","output_index":1,"item":{"type":"message"}}`),
			"output item 1 added out of order (expected 0)"},
		"text delta for a call": {respSSE(`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c","name":"n"}}`,
			`{"type":"response.output_text.delta","output_index":0,"delta":"x"}`), "text delta for tool_use content block 0"},
		"done twice": {respSSE(respMsgAdded, `{"type":"response.output_item.done","output_index":0,"item":{"type":"message"}}`,
			`{"type":"response.output_item.done","output_index":0,"item":{"type":"message"}}`), "output item 0 done twice"},
		"failed without error": {respSSE(`{"type":"response.failed","response":{"error":null}}`), "response failed"},
		"nested error event":   {"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad input\"}}\n\n", "bad input"},
		"no terminal event":    {respSSE(respMsgAdded), "stream ended before its end marker"},
		"not json":             {"data: {oops\n\n", "decode"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := decodeResponses(t, tc.body)
			var ae *APIError
			if err := s.Err(); !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an APIError containing %q", err, tc.want)
			}
		})
	}
}

func TestResponsesLenient(t *testing.T) {
	t.Parallel()
	// Items completed without deltas (servers that send only the final
	// item), an unknown event, events for an unknown item, an item left
	// open at response.completed, and [DONE] after the end.
	body := respSSE(
		`{"type":"response.created","response":{"status":"in_progress"}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs"}}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs","summary":[{"text":"a"},{"text":"b"}],"encrypted_content":"enc"}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"type":"file_search_call","id":"fs"}}`,
		`{"type":"response.output_text.delta","output_index":1,"delta":"ignored"}`,
		`{"type":"response.future_event","output_index":7}`,
		`{"type":"response.output_item.added","output_index":2,"item":{"type":"message","id":"m"}}`,
		`{"type":"response.output_item.done","output_index":2,"item":{"type":"message","content":[{"type":"output_text","text":"whole"}]}}`,
		`{"type":"response.output_item.added","output_index":3,"item":{"type":"function_call","id":"fc"}}`,
		`{"type":"response.output_item.done","output_index":3,"item":{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"a\"}"}}`,
		`{"type":"response.output_item.added","output_index":4,"item":{"type":"message","id":"m2"}}`,
		`{"type":"response.output_text.delta","output_index":4,"delta":" open"}`,
		respDone,
		`[DONE]`,
	)
	s, evs := decodeResponses(t, body)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	msg := s.Message()
	if len(msg.Content) != 4 {
		t.Fatalf("message = %+v", msg)
	}
	if b := msg.Content[0]; b.Kind != BlockReasoning || b.Text != "a\n\nb" || b.Data != "enc" || b.ID != "rs" {
		t.Errorf("reasoning = %+v", b)
	}
	if msg.Text() != "whole open" {
		t.Errorf("text = %q", msg.Text())
	}
	if calls := msg.ToolUses(); len(calls) != 1 || calls[0].ID != "c1" || string(calls[0].Input) != `{"path":"a"}` {
		t.Errorf("calls = %+v", calls)
	}
	if s.StopReason() != StopToolUse || s.Usage() != (Usage{InputTokens: 3, OutputTokens: 2}) {
		t.Errorf("stop %q usage %+v", s.StopReason(), s.Usage())
	}
	if last := evs[len(evs)-1]; last.Kind != EventStop {
		t.Errorf("last event %v", last.Kind)
	}
}

func TestResponsesModels(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ reasoning, only bool }{
		"gpt-5-codex":          {true, true},
		"gpt-5.1-codex-max":    {true, true},
		"codex-mini-latest":    {true, true},
		"o3-pro":               {true, true},
		"gpt-5-pro":            {true, true},
		"gpt-5.2-pro":          {true, true},
		"o3-deep-research":     {true, true},
		"openai/gpt-5-codex":   {true, true},
		"gpt-5":                {true, false},
		"gpt-5.5":              {true, false},
		"o4-mini":              {true, false},
		"gpt-oss-120b":         {true, false},
		"gpt-5-chat-latest":    {false, false},
		"gpt-4.1":              {false, false},
		"gpt-4o":               {false, false},
		"computer-use-preview": {false, true},
		"claude-opus-4-pro":    {false, false},
	}
	for model, tc := range tests {
		if got := isReasoningModel(model); got != tc.reasoning {
			t.Errorf("isReasoningModel(%q) = %v", model, got)
		}
		if got := ResponsesOnly(model); got != tc.only {
			t.Errorf("ResponsesOnly(%q) = %v", model, got)
		}
	}
}

func TestResponsesRequestWithoutReasoning(t *testing.T) {
	t.Parallel()
	temp := 0.2
	req := simpleRequest()
	req.Model, req.Temperature, req.StopSequences = "gpt-4.1", &temp, []string{"X"}
	body, err := NewResponses(ResponsesConfig{ReasoningSummary: "none"}).encode(req)
	if err != nil {
		t.Fatal(err)
	}
	got := string(body)
	for _, absent := range []string{"reasoning", "include", "stop"} {
		if strings.Contains(got, absent) {
			t.Errorf("body has %s: %s", absent, got)
		}
	}
	if !strings.Contains(got, `"temperature":0.2`) || !strings.Contains(got, `"store":false`) {
		t.Errorf("body = %s", got)
	}
	req.Model, req.ReasoningEffort = "gpt-5", "high"
	body, _ = NewResponses(ResponsesConfig{ReasoningSummary: "none"}).encode(req)
	if got := string(body); !strings.Contains(got, `"reasoning":{"effort":"high"}`) || strings.Contains(got, "temperature") {
		t.Errorf("reasoning body = %s", got)
	}
}

func TestResponsesInputDropsDanglingReasoning(t *testing.T) {
	t.Parallel()
	items := encodeResponsesInput([]Message{
		{Role: RoleUser, Content: []Block{TextBlock("hi")}},
		{Role: RoleAssistant, Content: []Block{
			{Kind: BlockReasoning, ID: "rs_1", Data: "enc1"},
			TextBlock("a"),
			{Kind: BlockReasoning, ID: "rs_2", Text: "cut here", Data: "enc2"},
		}},
		{Role: RoleAssistant, Content: []Block{{Kind: BlockReasoning, ID: "rs_3"}, TextBlock("b")}},
	})
	var got []string
	for _, it := range items {
		got = append(got, it.Type+":"+it.ID+it.Content)
	}
	if want := "message:hi reasoning:rs_1 message:a message:b"; strings.Join(got, " ") != want {
		t.Errorf("items = %v, want %s", got, want)
	}
}
