package llm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// decodeAnthropicMessages is the inverse of the request encoding, for the
// round-trip tests.
func decodeAnthropicMessages(t *testing.T, body []byte) []Message {
	t.Helper()
	var w antRequest
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	var out []Message
	for _, m := range w.Messages {
		msg := Message{Role: m.Role}
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				msg.Content = append(msg.Content, TextBlock(*b.Text))
			case "tool_use":
				msg.Content = append(msg.Content, ToolUseBlock(b.ID, b.Name, b.Input))
			case "tool_result":
				msg.Content = append(msg.Content, ToolResultBlock(b.ToolUseID, *b.Content, b.IsError))
			case "thinking":
				msg.Content = append(msg.Content, ThinkingBlock(*b.Thinking, *b.Signature))
			case "redacted_thinking":
				msg.Content = append(msg.Content, Block{Kind: BlockRedactedThinking, Data: b.Data})
			default:
				t.Fatalf("unknown block type %q", b.Type)
			}
		}
		out = append(out, msg)
	}
	return out
}

// decodeOpenAIMessages turns chat messages back into neutral ones: tool
// messages become tool-result blocks of a user message, merged with the
// user text that follows them.
func decodeOpenAIMessages(t *testing.T, body []byte) (string, []Message) {
	t.Helper()
	var w oaiRequest
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	var system string
	var out []Message
	lastUser := func() *Message {
		if n := len(out); n > 0 && out[n-1].Role == RoleUser {
			return &out[n-1]
		}
		out = append(out, Message{Role: RoleUser})
		return &out[len(out)-1]
	}
	for _, m := range w.Messages {
		switch m.Role {
		case "system":
			system = *m.Content
		case "user":
			u := lastUser()
			u.Content = append(u.Content, TextBlock(*m.Content))
		case "tool":
			u := lastUser()
			u.Content = append(u.Content, ToolResultBlock(m.ToolCallID, *m.Content, false))
		case "assistant":
			msg := Message{Role: RoleAssistant}
			if m.Content != nil && *m.Content != "" {
				msg.Content = append(msg.Content, TextBlock(*m.Content))
			}
			for _, c := range m.ToolCalls {
				msg.Content = append(msg.Content, ToolUseBlock(c.ID, c.Function.Name, json.RawMessage(c.Function.Arguments)))
			}
			out = append(out, msg)
		default:
			t.Fatalf("unknown role %q", m.Role)
		}
	}
	return system, out
}

// translationRoundTripCase is one case of TestTranslationRoundTrip.
type translationRoundTripCase struct {
	in        []Message
	anthropic []Message // nil: same as in
	openai    []Message // nil: same as in
}

// translationRoundTripCases returns the cases of TestTranslationRoundTrip.
func translationRoundTripCases(user func(...Block) Message, asst func(...Block) Message, obj json.RawMessage) map[string]translationRoundTripCase {
	return map[string]translationRoundTripCase{
		"text": {in: []Message{user(TextBlock("hi")), asst(TextBlock("hello"))}},
		"several tool results after one assistant turn": {
			in: []Message{
				user(TextBlock("go")),
				asst(TextBlock("Reading."), ToolUseBlock("c1", "read", obj), ToolUseBlock("c2", "ls", json.RawMessage(`{}`)), ToolUseBlock("c3", "grep", json.RawMessage(`{"q":"x"}`))),
				user(ToolResultBlock("c1", "one", false), ToolResultBlock("c2", "two", false), ToolResultBlock("c3", "three", false)),
				asst(TextBlock("done")),
			},
		},
		"tool results then text": {
			in:     []Message{asst(ToolUseBlock("c1", "read", obj)), user(ToolResultBlock("c1", "x", false), TextBlock("more"))},
			openai: []Message{asst(ToolUseBlock("c1", "read", obj)), user(ToolResultBlock("c1", "x", false), TextBlock("more"))},
		},
		"error result": {
			in:     []Message{asst(ToolUseBlock("c1", "bash", obj)), user(ToolResultBlock("c1", "exit 1", true))},
			openai: []Message{asst(ToolUseBlock("c1", "bash", obj)), user(ToolResultBlock("c1", "exit 1", false))}, // no error flag in chat
		},
		"invalid and empty tool input": {
			in:        []Message{asst(ToolUseBlock("c1", "read", json.RawMessage(`{"pa`)), ToolUseBlock("c2", "ls", nil), ToolUseBlock("c3", "ls", json.RawMessage(`[1]`)))},
			anthropic: []Message{asst(ToolUseBlock("c1", "read", emptyObject), ToolUseBlock("c2", "ls", emptyObject), ToolUseBlock("c3", "ls", emptyObject))},
			openai:    []Message{asst(ToolUseBlock("c1", "read", json.RawMessage(`{"pa`)), ToolUseBlock("c2", "ls", emptyObject), ToolUseBlock("c3", "ls", json.RawMessage(`[1]`)))},
		},
		"thinking kept for anthropic only": {
			in:     []Message{asst(ThinkingBlock("hmm", "sig"), Block{Kind: BlockRedactedThinking, Data: "xx"}, TextBlock("a"), ToolUseBlock("c1", "ls", obj))},
			openai: []Message{asst(TextBlock("a"), ToolUseBlock("c1", "ls", obj))},
		},
		"empty tool results": {
			in:        []Message{asst(ToolUseBlock("c1", "ls", obj), ToolUseBlock("c2", "ls", obj)), user(ToolResultBlock("c1", "", false), ToolResultBlock("c2", " ", true))},
			anthropic: []Message{asst(ToolUseBlock("c1", "ls", obj), ToolUseBlock("c2", "ls", obj)), user(ToolResultBlock("c1", noOutput, false), ToolResultBlock("c2", noOutput, true))},
			openai:    []Message{asst(ToolUseBlock("c1", "ls", obj), ToolUseBlock("c2", "ls", obj)), user(ToolResultBlock("c1", "", false), ToolResultBlock("c2", " ", false))},
		},
		"unsigned thinking and blank text dropped": {
			in:        []Message{user(TextBlock("q")), asst(ThinkingBlock("hm", ""), TextBlock(" \n"), ToolUseBlock("c1", "ls", obj)), user(ToolResultBlock("c1", "x", false))},
			anthropic: []Message{user(TextBlock("q")), asst(ToolUseBlock("c1", "ls", obj)), user(ToolResultBlock("c1", "x", false))},
			openai:    []Message{user(TextBlock("q")), asst(TextBlock(" \n"), ToolUseBlock("c1", "ls", obj)), user(ToolResultBlock("c1", "x", false))},
		},
		"message left empty is dropped": {
			in:        []Message{user(TextBlock("q")), asst(TextBlock("")), user(TextBlock("again"))},
			anthropic: []Message{user(TextBlock("q")), user(TextBlock("again"))},
			openai:    []Message{user(TextBlock("q")), asst(), user(TextBlock("again"))},
		},
		"empty text dropped": {
			in:        []Message{user(TextBlock("q")), asst(TextBlock(""), ToolUseBlock("c1", "ls", obj))},
			anthropic: []Message{user(TextBlock("q")), asst(ToolUseBlock("c1", "ls", obj))},
			openai:    []Message{user(TextBlock("q")), asst(ToolUseBlock("c1", "ls", obj))},
		},
	}
}

func TestTranslationRoundTrip(t *testing.T) {
	t.Parallel()
	user := func(b ...Block) Message { return Message{Role: RoleUser, Content: b} }
	asst := func(b ...Block) Message { return Message{Role: RoleAssistant, Content: b} }
	obj := json.RawMessage(`{"path":"a.go"}`)
	tests := translationRoundTripCases(user, asst, obj)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req := Request{Model: "m", System: "sys", Messages: tc.in}

			body, err := NewAnthropic(AnthropicConfig{}).encode(req)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.anthropic
			if want == nil {
				want = tc.in
			}
			if got := decodeAnthropicMessages(t, body); !reflect.DeepEqual(got, want) {
				t.Errorf("anthropic round trip:\n got %+v\nwant %+v", got, want)
			}

			body, err = NewOpenAI(OpenAIConfig{}).encode(req)
			if err != nil {
				t.Fatal(err)
			}
			want = tc.openai
			if want == nil {
				want = tc.in
			}
			sys, got := decodeOpenAIMessages(t, body)
			if sys != "sys" || !reflect.DeepEqual(got, want) {
				t.Errorf("openai round trip:\n got %q %+v\nwant %+v", sys, got, want)
			}
		})
	}
}

func TestAnthropicRequestDefaults(t *testing.T) {
	t.Parallel()
	body, err := NewAnthropic(AnthropicConfig{}).encode(Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("x")}}}})
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	if w["max_tokens"] != float64(DefaultAnthropicMaxTokens) || w["stream"] != true {
		t.Errorf("defaults = %v", w)
	}
	for _, k := range []string{"system", "tools", "thinking", "temperature", "stop_sequences"} {
		if _, ok := w[k]; ok {
			t.Errorf("unset field %s sent: %v", k, w[k])
		}
	}
}

func TestAnthropicDefaultMaxTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model      string
		configured int
		want       int
	}{
		{"claude-sonnet-4-5", 0, 32000},
		{"claude-opus-4-1-20250805", 0, 32000},
		{"claude-3-7-sonnet-20250219", 0, 32000},
		{"claude-3-5-haiku-20241022", 0, 8192},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", 0, 8192},
		{"claude-3-haiku-20240307", 0, 4096},
		{"claude-3-opus-latest", 0, 4096},
		{"claude-3-haiku-20240307", 1000, 1000},
		{"claude-sonnet-4-5", 64000, 64000},
	}
	for _, tc := range tests {
		req := simpleRequest()
		req.Model = tc.model
		body, err := NewAnthropic(AnthropicConfig{DefaultMaxTokens: tc.configured}).encode(req)
		if err != nil {
			t.Fatal(err)
		}
		var w struct {
			MaxTokens int `json:"max_tokens"`
		}
		if err := json.Unmarshal(body, &w); err != nil || w.MaxTokens != tc.want {
			t.Errorf("%s (configured %d): max_tokens = %d (%v), want %d", tc.model, tc.configured, w.MaxTokens, err, tc.want)
		}
	}
	// A request's own MaxTokens wins.
	req := simpleRequest()
	req.MaxTokens = 77
	if body, _ := NewAnthropic(AnthropicConfig{}).encode(req); !strings.Contains(string(body), `"max_tokens":77`) {
		t.Errorf("explicit max tokens: %s", body)
	}
}

func TestAnthropicCacheBreakpoints(t *testing.T) {
	t.Parallel()
	obj := json.RawMessage(`{}`)
	tests := map[string]struct {
		caching bool
		last    []Block
		want    []string // the types of the last message's blocks, "*" marking the cached one
	}{
		"user text":            {true, []Block{TextBlock("a"), TextBlock("b")}, []string{"text", "text*"}},
		"tool results":         {true, []Block{ToolResultBlock("c1", "x", false), ToolResultBlock("c2", "y", false)}, []string{"tool_result", "tool_result*"}},
		"thinking skipped":     {true, []Block{ToolUseBlock("c1", "ls", obj), ThinkingBlock("hm", "sig")}, []string{"tool_use*", "thinking"}},
		"only thinking":        {true, []Block{ThinkingBlock("hm", "sig")}, []string{"thinking"}},
		"caching off":          {false, []Block{TextBlock("a")}, []string{"text"}},
		"blank block not sent": {true, []Block{TextBlock("a"), TextBlock(" ")}, []string{"text*"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req := simpleRequest()
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: tc.last})
			body, err := NewAnthropic(AnthropicConfig{PromptCaching: tc.caching}).encode(req)
			if err != nil {
				t.Fatal(err)
			}
			var w antRequest
			if err := json.Unmarshal(body, &w); err != nil {
				t.Fatal(err)
			}
			if first := w.Messages[0].Content[0]; first.CacheControl != nil {
				t.Errorf("earlier message marked too")
			}
			var got []string
			for _, b := range w.Messages[len(w.Messages)-1].Content {
				if b.CacheControl != nil {
					b.Type += "*"
				}
				got = append(got, b.Type)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("blocks = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOpenAIAssistantContent(t *testing.T) {
	t.Parallel()
	call := ToolUseBlock("c1", "ls", json.RawMessage(`{}`))
	tests := map[string]struct {
		blocks []Block
		want   string // the content field as JSON
	}{
		"tool call only":             {[]Block{call}, "null"},
		"empty text and a tool call": {[]Block{TextBlock(""), call}, "null"},
		"text and a tool call":       {[]Block{TextBlock("a"), TextBlock("b"), call}, `"ab"`},
		"empty text only":            {[]Block{TextBlock("")}, `""`},
		"thinking only":              {[]Block{ThinkingBlock("hm", "")}, `""`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			msgs := encodeOpenAIMessages("", []Message{{Role: RoleAssistant, Content: tc.blocks}})
			got, err := json.Marshal(msgs[0].Content)
			if err != nil || string(got) != tc.want {
				t.Errorf("content = %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}
