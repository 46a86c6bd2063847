package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestOpenAIContentForms(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		raw            string
		text, thinking string
	}{
		"string":           {`"hi"`, "hi", ""},
		"null":             {`null`, "", ""},
		"escaped":          {`"a\"b\n\u00e9"`, "a\"b\né", ""},
		"invalid utf-8":    {"\"a\xffb\"", "a\ufffdb", ""},
		"text parts":       {`[{"type":"text","text":"a"},{"type":"text","text":"b"}]`, "ab", ""},
		"thinking as list": {`[{"type":"thinking","thinking":[{"type":"text","text":"x"},{"type":"text","text":"y"}]},{"type":"text","text":"t"}]`, "t", "xy"},
		"thinking string":  {`[{"type":"thinking","thinking":"z"}]`, "", "z"},
		"unknown parts":    {`[{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"k"}]`, "k", ""},
		"empty list":       {`[]`, "", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var d oaiDelta
			if err := json.Unmarshal([]byte(`{"content":`+tc.raw+`}`), &d); err != nil {
				t.Fatal(err)
			}
			if d.Content.Text != tc.text || d.Content.Thinking != tc.thinking {
				t.Errorf("content = %+v, want text %q thinking %q", d.Content, tc.text, tc.thinking)
			}
		})
	}
	var d oaiDelta
	if err := json.Unmarshal([]byte(`{"content":{"bad":1}}`), &d); err == nil {
		t.Errorf("an object as content decoded without error")
	}
}

// TestThoughtSplitter feeds the same content in every split into two
// chunks and checks the thinking and text that come out.
func TestThoughtSplitter(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ content, thinking, text string }{
		"thought then answer": {"<thought>plan</thought>answer", "plan", "answer"},
		"leading space":       {"\n <thought>p</thought>\n\nA", "p", "\n\nA"},
		"no thought":          {"just text", "", "just text"},
		"tag after text":      {"use <thought>x</thought> tags", "", "use <thought>x</thought> tags"},
		"unclosed":            {"<thought>still thinking", "still thinking", ""},
		"partial open tag":    {"<thou", "", "<thou"},
		"look-alike":          {"<though it is", "", "<though it is"},
		"two thoughts":        {"<thought>a</thought><thought>b</thought>c", "ab", "c"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for cut := 0; cut <= len(tc.content); cut++ {
				var sp thoughtSplitter
				var th, tx strings.Builder
				for _, piece := range []string{tc.content[:cut], tc.content[cut:]} {
					a, b := sp.split(piece)
					th.WriteString(a)
					tx.WriteString(b)
				}
				a, b := sp.flush()
				th.WriteString(a)
				tx.WriteString(b)
				if th.String() != tc.thinking || tx.String() != tc.text {
					t.Fatalf("cut at %d: thinking %q text %q, want %q %q", cut, th.String(), tx.String(), tc.thinking, tc.text)
				}
			}
		})
	}
}

func TestOpenAIStreamErrors(t *testing.T) {
	t.Parallel()
	chunk := func(delta, finish string) string {
		return `{"choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
	}
	tests := map[string]struct {
		body  string
		kind  ErrorKind // 0: no error
		stop  StopReason
		retry bool
	}{
		"length then error": {oaiSSE(chunk(`{"content":"a"}`, `"length"`), `{"error":{"message":"max tokens","type":"invalid_request_error"}}`),
			0, StopMaxTokens, false},
		"length then error event": {oaiSSE(chunk(`{"content":"a"}`, `"length"`)) + "event: error\ndata: {\"message\":\"max tokens\"}\n\n",
			0, StopMaxTokens, false},
		"stop then error": {oaiSSE(chunk(`{"content":"a"}`, `"stop"`), `{"error":{"message":"boom","type":"server_error"}}`),
			KindServer, "", false},
		"groq tool_use_failed": {oaiSSE(`{"error":{"message":"Failed to call a function.","type":"invalid_request_error","code":"tool_use_failed"}}`),
			KindInvalidRequest, "", false},
		"unknown code known type": {oaiSSE(`{"error":{"message":"no","type":"invalid_request_error","code":"something_new"}}`),
			KindInvalidRequest, "", false},
		"unknown code unknown type": {oaiSSE(`{"error":{"message":"no","type":"weird","code":"something_new"}}`),
			KindServer, "", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := decodeString(t, "openai", tc.body)
			err := s.Err()
			if tc.kind == 0 {
				if err != nil || s.StopReason() != tc.stop {
					t.Fatalf("err %v stop %q, want nil %q", err, s.StopReason(), tc.stop)
				}
				return
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.Kind != tc.kind || IsRetryable(err) != tc.retry {
				t.Fatalf("err = %v, want kind %v retryable %v", err, tc.kind, tc.retry)
			}
		})
	}
}

// TestGeminiSignatureRoundTrip checks that a tool call's thought signature
// read from the stream goes back in the next request's extra_content.
func TestGeminiSignatureRoundTrip(t *testing.T) {
	t.Parallel()
	msgs := encodeOpenAIMessages("", []Message{{Role: RoleAssistant, Content: []Block{
		{Kind: BlockToolUse, ID: "c1", Name: "read", Input: json.RawMessage(`{}`), Signature: "sig=="},
		{Kind: BlockToolUse, ID: "c2", Name: "ls", Input: json.RawMessage(`{}`)},
	}}})
	raw, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(raw); !strings.Contains(got, `"extra_content":{"google":{"thought_signature":"sig=="}}`) ||
		strings.Count(got, "extra_content") != 1 {
		t.Errorf("encoded %s", got)
	}
}
