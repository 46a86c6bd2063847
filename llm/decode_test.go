package llm

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// decodeString runs an SSE body through a decoder, without HTTP.
func decodeString(t *testing.T, provider, body string) (*Stream, []Event) {
	t.Helper()
	dec := testDecoder(provider)
	s := newStream(provider, io.NopCloser(strings.NewReader(body)), dec, nil)
	return s, drain(t, s)
}

// antSSE builds an Anthropic stream from (event, data) pairs.
func antSSE(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString("event: " + pairs[i] + "\ndata: " + pairs[i+1] + "\n\n")
	}
	return b.String()
}

// oaiSSE builds an OpenAI stream from data payloads.
func oaiSSE(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

const (
	antStart     = `{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}`
	antTextStart = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	antStop0     = `{"type":"content_block_stop","index":0}`
	antMsgStop   = `{"type":"message_stop"}`
)

func deltaJSON(index, typ, field, value string) string {
	return `{"type":"content_block_delta","index":` + index + `,"delta":{"type":"` + typ + `","` + field + `":"` + value + `"}}`
}

func TestAnthropicProtocolViolations(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body string
		want string // substring of the error
	}{
		"delta for unknown block": {antSSE("message_start", antStart, "content_block_delta", deltaJSON("0", "text_delta", "text", "x")),
			"text delta for unknown content block 0"},
		"delta after stop": {antSSE("message_start", antStart, "content_block_start", antTextStart, "content_block_stop", antStop0,
			"content_block_delta", deltaJSON("0", "text_delta", "text", "x")), "after it stopped"},
		"wrong delta type": {antSSE("message_start", antStart, "content_block_start", antTextStart,
			"content_block_delta", deltaJSON("0", "input_json_delta", "partial_json", "{")), "input delta for text content block 0"},
		"signature on text": {antSSE("message_start", antStart, "content_block_start", antTextStart,
			"content_block_delta", deltaJSON("0", "signature_delta", "signature", "s")), "signature delta for text"},
		"stop twice": {antSSE("message_start", antStart, "content_block_start", antTextStart, "content_block_stop", antStop0,
			"content_block_stop", antStop0), "stop for content block 0 after it stopped"},
		"block skipped": {antSSE("message_start", antStart, "content_block_start", antTextStart,
			"content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`), "content block 2 started out of order (expected 1)"},
		"block restarted": {antSSE("message_start", antStart, "content_block_start", antTextStart,
			"content_block_start", antTextStart), "content block 0 started out of order (expected 1)"},
		"stop with open block": {antSSE("message_start", antStart, "content_block_start", antTextStart, "message_stop", antMsgStop),
			"message_stop with content block 0 still open"},
		"start without index": {antSSE("content_block_start", `{"type":"content_block_start","content_block":{"type":"text"}}`),
			"without index"},
		"not json":   {"event: message_start\ndata: {oops\n\n", `decode "message_start" event`},
		"no marker":  {antSSE("message_start", antStart), "stream ended before its end marker"},
		"empty body": {"", "stream ended before its end marker"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := decodeString(t, "anthropic", tc.body)
			err := s.Err()
			var ae *APIError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an APIError containing %q", err, tc.want)
			}
		})
	}
}

func TestAnthropicLenient(t *testing.T) {
	t.Parallel()
	// Unknown event, block and delta types are ignored; a tool_use whose
	// input comes whole in its start event keeps it; ping may come anywhere;
	// a message without stop_reason but with a tool call stops for tool use.
	body := antSSE(
		"message_start", antStart,
		"ping", `{"type":"ping"}`,
		"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"future_block","id":"s1","name":"web_search","input":{}}}`,
		"content_block_delta", deltaJSON("0", "citations_delta", "x", "y"),
		"content_block_delta", deltaJSON("0", "input_json_delta", "partial_json", "{"),
		"content_block_delta", deltaJSON("0", "text_delta", "text", "x"),
		"content_block_stop", antStop0,
		"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"read","input":{"path":"a"}}}`,
		"content_block_stop", `{"type":"content_block_stop","index":1}`,
		"future_event", `{"type":"future_event"}`,
		"message_delta", `{"type":"message_delta","delta":{},"usage":{"output_tokens":9,"input_tokens":7}}`,
		"message_stop", antMsgStop,
		"after", `{"never":"read"}`,
	)
	s, evs := decodeString(t, "anthropic", body)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	msg := s.Message()
	if len(msg.Content) != 1 || string(msg.Content[0].Input) != `{"path":"a"}` {
		t.Fatalf("message = %+v", msg)
	}
	if s.StopReason() != StopToolUse || s.Usage() != (Usage{InputTokens: 7, OutputTokens: 9}) {
		t.Errorf("stop %q usage %+v", s.StopReason(), s.Usage())
	}
	if last := evs[len(evs)-1]; last.Kind != EventStop {
		t.Errorf("last event %v", last.Kind)
	}
}

// oaiTestChunk writes one OpenAI stream chunk with delta and finish reason.
func oaiTestChunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

// openAIDecodingCase is one case of TestOpenAIDecoding.
type openAIDecodingCase struct {
	body     string
	blocks   []Block
	stop     StopReason
	wantErr  string
	wantKind ErrorKind
}

// openAIDecodingCases returns the cases of TestOpenAIDecoding.
func openAIDecodingCases() map[string]openAIDecodingCase {
	return map[string]openAIDecodingCase{
		"calls without index": {
			body: oaiSSE(oaiTestChunk(`{"tool_calls":[{"id":"a","function":{"name":"ls","arguments":"{\"p\":"}}]}`, ""),
				oaiTestChunk(`{"tool_calls":[{"function":{"arguments":"1}"}}]}`, ""),
				oaiTestChunk(`{"tool_calls":[{"id":"b","function":{"name":"read","arguments":"{}"}}]}`, "tool_calls"), "[DONE]"),
			blocks: []Block{ToolUseBlock("a", "ls", []byte(`{"p":1}`)), ToolUseBlock("b", "read", []byte(`{}`))},
			stop:   StopToolUse,
		},
		"every call numbered 0": {
			body: oaiSSE(oaiTestChunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"ls","arguments":"{\"p\":"}}]}`, ""),
				oaiTestChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`, ""),
				oaiTestChunk(`{"tool_calls":[{"index":0,"id":"b","function":{"name":"read","arguments":"{}"}}]}`, ""),
				oaiTestChunk(`{"tool_calls":[{"index":0,"id":"b","function":{"arguments":""}}]}`, "tool_calls"), "[DONE]"),
			blocks: []Block{ToolUseBlock("a", "ls", []byte(`{"p":1}`)), ToolUseBlock("b", "read", []byte(`{}`))},
			stop:   StopToolUse,
		},
		"calls without id": {
			body:   oaiSSE(oaiTestChunk(`{"tool_calls":[{"index":0,"function":{"name":"ls","arguments":"{}"}},{"index":1,"function":{"name":"cat","arguments":"{}"}}]}`, "tool_calls"), "[DONE]"),
			blocks: []Block{ToolUseBlock("call_0", "ls", []byte(`{}`)), ToolUseBlock("call_1", "cat", []byte(`{}`))},
			stop:   StopToolUse,
		},
		"interleaved by index": {
			body: oaiSSE(oaiTestChunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"ls","arguments":"{\"x\""}},{"index":1,"id":"b","function":{"name":"cat","arguments":"{"}}]}`, ""),
				oaiTestChunk(`{"tool_calls":[{"index":1,"function":{"arguments":"}"}},{"index":0,"function":{"arguments":":2}"}}]}`, "tool_calls"), "[DONE]"),
			blocks: []Block{ToolUseBlock("a", "ls", []byte(`{"x":2}`)), ToolUseBlock("b", "cat", []byte(`{}`))},
			stop:   StopToolUse,
		},
		"text after a tool call opens a new block": {
			body: oaiSSE(oaiTestChunk(`{"content":"a"}`, ""), oaiTestChunk(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"ls"}}]}`, ""),
				oaiTestChunk(`{"content":"b"}`, "stop"), "[DONE]"),
			blocks: []Block{TextBlock("a"), ToolUseBlock("c", "ls", []byte(`{}`)), TextBlock("b")},
			stop:   StopToolUse,
		},
		"refusal": {
			body:   oaiSSE(oaiTestChunk(`{"refusal":"I can't help with that."}`, "stop"), "[DONE]"),
			blocks: []Block{TextBlock("I can't help with that.")},
			stop:   StopRefusal,
		},
		"content filter":      {body: oaiSSE(oaiTestChunk(`{"content":"x"}`, "content_filter"), "[DONE]"), blocks: []Block{TextBlock("x")}, stop: StopRefusal},
		"unknown finish":      {body: oaiSSE(oaiTestChunk(`{"content":"x"}`, "eos"), "[DONE]"), blocks: []Block{TextBlock("x")}, stop: "eos"},
		"done without finish": {body: oaiSSE(oaiTestChunk(`{"content":"x"}`, ""), "[DONE]"), blocks: []Block{TextBlock("x")}, stop: StopEndTurn},
		"other choices ignored": {
			body:   oaiSSE(`{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"}}]}`, oaiTestChunk(`{}`, "stop"), "[DONE]"),
			blocks: []Block{TextBlock("yes")}, stop: StopEndTurn,
		},
		"error as event type": {body: "event: error\ndata: {\"message\":\"boom\",\"type\":\"server_error\"}\n\n", wantErr: "boom", wantKind: KindServer},
		"error with string":   {body: oaiSSE(`{"error":"rate limited, slow down"}`), wantErr: "rate limited", wantKind: KindServer},
		"quota in stream": {body: oaiSSE(`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`),
			wantErr: "current quota", wantKind: KindQuota},
		"cut": {body: oaiSSE(oaiTestChunk(`{"content":"x"}`, "")), wantErr: "end marker", wantKind: KindStreamCut},
	}
}

func TestOpenAIDecoding(t *testing.T) {
	t.Parallel()
	tests := openAIDecodingCases()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := decodeString(t, "openai", tc.body)
			err := s.Err()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || KindOf(err) != tc.wantKind {
					t.Fatalf("err = %v (kind %v), want %q of kind %v", err, KindOf(err), tc.wantErr, tc.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := s.Message().Content
			if len(got) != len(tc.blocks) {
				t.Fatalf("blocks = %+v, want %+v", got, tc.blocks)
			}
			for i := range got {
				g, w := got[i], tc.blocks[i]
				if g.Kind != w.Kind || g.Text != w.Text || g.ID != w.ID || g.Name != w.Name || string(g.Input) != string(w.Input) {
					t.Errorf("block %d = %+v, want %+v", i, g, w)
				}
			}
			if s.StopReason() != tc.stop {
				t.Errorf("stop = %q, want %q", s.StopReason(), tc.stop)
			}
		})
	}
}

func TestOversizedEvent(t *testing.T) {
	t.Parallel()
	// An event above the old 64 KB default decodes; one above the limit is
	// a protocol error, not a hang or a crash.
	big := strings.Repeat("x", 200<<10)
	body := antSSE("message_start", antStart, "content_block_start", antTextStart,
		"content_block_delta", deltaJSON("0", "text_delta", "text", big), "content_block_stop", antStop0, "message_stop", antMsgStop)
	s, _ := decodeString(t, "anthropic", body)
	if err := s.Err(); err != nil || s.Message().Text() != big {
		t.Fatalf("200 KB event: err %v, text length %d", err, len(s.Message().Text()))
	}
	huge := "data: " + strings.Repeat("y", maxEventSize+10) + "\n\n"
	s, _ = decodeString(t, "openai", huge)
	if KindOf(s.Err()) != KindProtocol || !strings.Contains(s.Err().Error(), "event larger than") {
		t.Fatalf("huge event: err = %v", s.Err())
	}
}

func TestStreamCloseEarly(t *testing.T) {
	t.Parallel()
	s, _ := decodeString(t, "openai", "")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Next() {
		t.Fatal("Next after Close")
	}
	body := io.NopCloser(strings.NewReader(oaiSSE(`{"choices":[{"index":0,"delta":{"content":"x"}}]}`, "[DONE]")))
	s = newStream("openai", body, newOpenAIDecoder(), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Next() || s.Err() != nil {
		t.Fatalf("closed stream: Next true or Err %v", s.Err())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
