package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
)

// streamer is what both clients offer; the tests run every case against
// both through it.
type streamer interface {
	Stream(context.Context, Request) (*Stream, error)
}

// protocols names the clients of [clients].
var protocols = []string{"anthropic", "openai", "responses"}

// clients returns an Anthropic, an OpenAI Chat Completions and an OpenAI
// Responses client for srv.
func clients(srv *llmtest.Server) map[string]streamer {
	return map[string]streamer{
		"anthropic": NewAnthropic(AnthropicConfig{BaseURL: srv.URL(), APIKey: "test-key-anthropic"}),
		"openai":    NewOpenAI(OpenAIConfig{BaseURL: srv.URL() + "/v1", APIKey: "test-key-openai"}),
		"responses": NewResponses(ResponsesConfig{Provider: "responses", BaseURL: srv.URL() + "/v1", APIKey: "test-key-responses"}),
	}
}

// drain reads s to its end, returning its events.
func drain(t *testing.T, s *Stream) []Event {
	t.Helper()
	var evs []Event
	for i := 0; s.Next(); i++ {
		if i > 100000 {
			t.Fatal("stream does not end")
		}
		evs = append(evs, s.Current())
	}
	return evs
}

func simpleRequest() Request {
	return Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}}
}

func TestScriptedBothProtocols(t *testing.T) {
	t.Parallel()
	script := llmtest.Script{Turns: []llmtest.Turn{{
		Thinking: []string{"Let me ", "look."},
		Text:     []string{"I will ", "read it."},
		ToolCalls: []llmtest.ToolCall{
			{ID: "call_a", Name: "read", Args: []string{`{"pa`, `th":"a`, `.go"}`}},
			{ID: "call_b", Name: "ls", Args: nil},
			{ID: "call_c", Name: "grep", Args: []string{`{"pattern":`, `"x"`}}, // malformed on purpose
		},
		Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 7, CacheReadTokens: 4},
	}}}
	for _, name := range protocols {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(script)
			defer srv.Close()
			s, err := clients(srv)[name].Stream(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			evs := drain(t, s)
			if err := s.Err(); err != nil {
				t.Fatalf("Err = %v", err)
			}
			var text, thinking strings.Builder
			var calls []Block
			for _, ev := range evs {
				switch ev.Kind {
				case EventText:
					text.WriteString(ev.Text)
				case EventThinking:
					thinking.WriteString(ev.Text)
				case EventToolUse:
					calls = append(calls, ev.ToolUse)
				}
			}
			if got := text.String(); got != "I will read it." {
				t.Errorf("text = %q", got)
			}
			if got := thinking.String(); got != "Let me look." {
				t.Errorf("thinking = %q", got)
			}
			wantInputs := []string{`{"path":"a.go"}`, `{}`, `{"pattern":"x"`}
			if len(calls) != 3 {
				t.Fatalf("tool calls = %+v", calls)
			}
			for i, c := range calls {
				if string(c.Input) != wantInputs[i] {
					t.Errorf("call %d input = %s, want %s", i, c.Input, wantInputs[i])
				}
			}
			if calls[0].ID != "call_a" || calls[0].Name != "read" || calls[2].Name != "grep" {
				t.Errorf("calls = %+v", calls)
			}
			last := evs[len(evs)-1]
			if last.Kind != EventStop || last.StopReason != StopToolUse {
				t.Errorf("last event = %+v", last)
			}
			wantUsage := Usage{InputTokens: 10, OutputTokens: 7, CacheReadTokens: 4}
			if s.Usage() != wantUsage || last.Usage != wantUsage {
				t.Errorf("usage = %+v, stop usage %+v, want %+v", s.Usage(), last.Usage, wantUsage)
			}
			msg := s.Message()
			if msg.Role != RoleAssistant || msg.Text() != "I will read it." || len(msg.ToolUses()) != 3 {
				t.Errorf("message = %+v", msg)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("requests = %d", len(srv.Requests()))
			}
		})
	}
}

// scriptedFaultsCase is one case of TestScriptedFaults.
type scriptedFaultsCase struct {
	turn        llmtest.Turn
	kind        ErrorKind
	status      int
	retryable   bool // IsRetryable
	partial     bool
	retryAfter  time.Duration
	contextLen  bool
	fromStream  bool // the error surfaces from Stream.Err, not Stream
	wantText    string
	wantMessage string // substring of the error message
}

// scriptedFaultsCases returns the cases of TestScriptedFaults.
func scriptedFaultsCases() map[string]scriptedFaultsCase {
	return map[string]scriptedFaultsCase{
		"429 retry-after": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 429, Headers: map[string]string{"retry-after": "3"}}},
			kind: KindRateLimit, status: 429, retryable: true, retryAfter: 3 * time.Second},
		"429 retry-after-ms": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 429, Headers: map[string]string{"retry-after-ms": "1500", "retry-after": "9"}}},
			kind: KindRateLimit, status: 429, retryable: true, retryAfter: 1500 * time.Millisecond},
		"429 quota": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 429, Type: "insufficient_quota", Message: "You exceeded your current quota"}},
			kind: KindQuota, status: 429},
		"401": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 401, Message: "invalid x-api-key"}},
			kind: KindAuth, status: 401, wantMessage: "invalid x-api-key"},
		"403":          {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 403}}, kind: KindAuth, status: 403},
		"404":          {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 404, Message: "model: nope"}}, kind: KindNotFound, status: 404},
		"413":          {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 413}}, kind: KindTooLarge, status: 413},
		"400":          {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 400, Message: "messages: bad"}}, kind: KindInvalidRequest, status: 400},
		"400 too long": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 400, Message: "prompt is too long: 210000 tokens > 200000 maximum"}}, kind: KindContextLength, status: 400, contextLen: true},
		"400 context code": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 400, Type: "context_length_exceeded", Message: "This model's maximum context length is 128000 tokens."}},
			kind: KindContextLength, status: 400, contextLen: true},
		"500": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 500}}, kind: KindServer, status: 500, retryable: true},
		"502": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 502, Body: "<html>bad gateway</html>", Headers: map[string]string{"content-type": "text/html"}}},
			kind: KindServer, status: 502, retryable: true, wantMessage: "<html>bad gateway</html>"},
		"503": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 503}}, kind: KindServer, status: 503, retryable: true},
		"504": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 504}}, kind: KindServer, status: 504, retryable: true},
		"529": {turn: llmtest.Turn{Fault: &llmtest.Fault{Status: 529, Type: "overloaded_error", Message: "Overloaded"}}, kind: KindOverloaded, status: 529, retryable: true},
		"disconnect before content": {turn: llmtest.Turn{Text: []string{"a", "b"}, Fault: &llmtest.Fault{Disconnect: true}},
			kind: KindStreamCut, retryable: true, fromStream: true},
		"disconnect after content": {turn: llmtest.Turn{Text: []string{"a", "b"}, Fault: &llmtest.Fault{After: 1, Disconnect: true}},
			kind: KindStreamCut, partial: true, fromStream: true, wantText: "a"},
		"truncate before end marker": {turn: llmtest.Turn{Text: []string{"a", "b"}, Fault: &llmtest.Fault{After: 2, Truncate: true}},
			kind: KindStreamCut, partial: true, fromStream: true, wantText: "ab", wantMessage: "end marker"},
		"malformed event": {turn: llmtest.Turn{Text: []string{"a", "b"}, Fault: &llmtest.Fault{After: 1, Malformed: true}},
			kind: KindProtocol, partial: true, fromStream: true, wantText: "a"},
		"error event overloaded": {turn: llmtest.Turn{Text: []string{"a"}, Fault: &llmtest.Fault{Type: "overloaded_error", Message: "Overloaded", ErrorEvent: true}},
			kind: KindOverloaded, retryable: true, fromStream: true, wantMessage: "Overloaded"},
		"error event after content": {turn: llmtest.Turn{Text: []string{"a"}, Fault: &llmtest.Fault{After: 1, Type: "api_error", ErrorEvent: true}},
			kind: KindServer, partial: true, fromStream: true, wantText: "a"},
	}
}

func TestScriptedFaults(t *testing.T) {
	t.Parallel()
	tests := scriptedFaultsCases()
	for name, tc := range tests {
		for _, pname := range protocols {
			t.Run(name+"/"+pname, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{tc.turn}})
				defer srv.Close()
				s, err := clients(srv)[pname].Stream(context.Background(), simpleRequest())
				var text strings.Builder
				if s != nil {
					if !tc.fromStream {
						t.Fatalf("Stream returned a stream, want error")
					}
					for _, ev := range drain(t, s) {
						text.WriteString(ev.Text)
					}
					err = s.Err()
					if got := s.Message().Text(); got != tc.wantText {
						t.Errorf("Message().Text() = %q, want %q", got, tc.wantText)
					}
				} else if tc.fromStream {
					t.Fatalf("Stream error %v, want it from the stream", err)
				}
				var ae *APIError
				if !errors.As(err, &ae) {
					t.Fatalf("err = %v (%T), want *APIError", err, err)
				}
				if ae.Kind != tc.kind || ae.StatusCode != tc.status || ae.Partial != tc.partial || ae.RetryAfter != tc.retryAfter {
					t.Errorf("err = %+v\nwant kind %v status %d partial %v retry-after %v", ae, tc.kind, tc.status, tc.partial, tc.retryAfter)
				}
				if ae.Provider != pname {
					t.Errorf("provider = %q", ae.Provider)
				}
				if IsRetryable(err) != tc.retryable {
					t.Errorf("IsRetryable = %v, want %v (%v)", !tc.retryable, tc.retryable, err)
				}
				if IsContextLength(err) != tc.contextLen {
					t.Errorf("IsContextLength = %v", !tc.contextLen)
				}
				if text.String() != tc.wantText {
					t.Errorf("streamed text = %q, want %q", text.String(), tc.wantText)
				}
				if !strings.Contains(err.Error(), tc.wantMessage) {
					t.Errorf("error %q does not contain %q", err, tc.wantMessage)
				}
				if strings.Contains(err.Error(), "test-key") {
					t.Errorf("error contains the API key: %v", err)
				}
			})
		}
	}
}

func TestScriptedExtraRequest(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.Script{})
	defer srv.Close()
	_, err := clients(srv)["anthropic"].Stream(context.Background(), simpleRequest())
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 500 || !strings.Contains(ae.Message, "request 1 asks for turn 1 but the script has 0") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamCancel(t *testing.T) {
	t.Parallel()
	slow := llmtest.Turn{Text: []string{"a", "b", "c"}, Delay: llmtest.Duration(time.Hour)}
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{slow, slow, slow}})
	defer srv.Close()
	for name, c := range clients(srv) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			s, err := c.Stream(ctx, simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			cancel()
			drain(t, s)
			if err := s.Err(); !errors.Is(err, context.Canceled) || IsRetryable(err) {
				t.Fatalf("Err = %v, want context.Canceled, not retryable", err)
			}
		})
	}
}

// TestRichRequestAccepted checks that both encodings of a history with
// thinking, malformed and empty tool inputs and several tool results pass
// the protocol rules the scripted server enforces like the real APIs.
func TestRichRequestAccepted(t *testing.T) {
	t.Parallel()
	turn := llmtest.Turn{Text: []string{"ok"}}
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{turn, turn, turn}})
	defer srv.Close()
	for _, name := range protocols {
		s, err := clients(srv)[name].Stream(context.Background(), richRequest())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		drain(t, s)
		if err := s.Err(); err != nil || s.Message().Text() != "ok" {
			t.Fatalf("%s: err %v, text %q", name, err, s.Message().Text())
		}
	}
}
