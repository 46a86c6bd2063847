package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// referenceAnthropicBody is the Messages API body of req encoded afresh,
// all at once, as the client did before it kept parts between requests:
// the oracle of the body cache's tests.
func referenceAnthropicBody(t testing.TB, c *AnthropicClient, req Request) []byte {
	t.Helper()
	w, err := c.settings(req)
	if err != nil {
		t.Fatal(err)
	}
	if w.System, err = c.encodeSystem(req.System); err != nil {
		t.Fatal(err)
	}
	w.Tools = c.wireTools(req.Tools)
	w.Messages = make([]antMessage, 0, len(req.Messages))
	for _, m := range req.Messages {
		if blocks := encodeAnthropicBlocks(m.Content); len(blocks) > 0 {
			w.Messages = append(w.Messages, antMessage{Role: m.Role, Content: blocks})
		}
	}
	if c.cfg.PromptCaching {
		markLastCacheable(w.Messages)
	}
	body, err := marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// checkBody encodes req with c and compares it with the reference.
func checkBody(t testing.TB, c *AnthropicClient, req Request, step string) {
	t.Helper()
	got, err := c.encode(req)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	if want := referenceAnthropicBody(t, c, req); !bytes.Equal(got, want) {
		t.Fatalf("%s: body differs from a fresh encoding\n got: %s\nwant: %s", step, got, want)
	}
	if !json.Valid(got) {
		t.Fatalf("%s: invalid JSON %s", step, got)
	}
}

func agentTools() []ToolSpec {
	return []ToolSpec{
		{Name: "read", Description: "Read a file <with> & \"quotes\"", Schema: json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}}}`)},
		{Name: "bash", Description: "Run a command.", Schema: json.RawMessage(`{"type":"object"}`)},
		{Name: "ls"},
	}
}

// turn appends one tool round trip to msgs.
func turn(msgs []Message, i int) []Message {
	id := fmt.Sprintf("toolu_%02d", i)
	return append(msgs,
		Message{Role: RoleAssistant, Content: []Block{TextBlock(fmt.Sprintf("step %d", i)), ToolUseBlock(id, "bash", json.RawMessage(`{"command": "echo `+fmt.Sprint(i)+`"}`))}},
		Message{Role: RoleUser, Content: []Block{ToolResultBlock(id, fmt.Sprintf("out %d\n", i), i%3 == 0)}})
}

// TestAnthropicBodyCache proves that a client that keeps the encoded
// parts of its requests sends, request after request, exactly the body
// a fresh encoding gives: as an agent's conversation grows, when the
// caller edits its history in place (a block's text, a tool input's
// bytes), compacts it, ends it with messages that are not sent, changes
// its system prompt or its tools, or alternates two conversations.
func TestAnthropicBodyCache(t *testing.T) {
	for _, caching := range []bool{false, true} {
		t.Run(fmt.Sprintf("caching=%v", caching), func(t *testing.T) {
			c := NewAnthropic(AnthropicConfig{APIKey: "k", PromptCaching: caching})
			req := Request{Model: "claude-sonnet-4-5", System: "You are careful.", Tools: agentTools(),
				Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("go")}}}}
			checkBody(t, c, req, "first")
			for i := range 12 {
				req.Messages = turn(req.Messages, i)
				checkBody(t, c, req, fmt.Sprintf("turn %d", i))
			}
			// Edits in place, in the slices the client saw.
			req.Messages[3].Content[0].Text = "rewritten"
			checkBody(t, c, req, "text edited in place")
			req.Messages[4].Content[0].Content = "[redacted]"
			checkBody(t, c, req, "result edited in place")
			input := req.Messages[5].Content[1].Input
			copy(input[bytes.IndexByte(input, 'e'):], "ECHO")
			checkBody(t, c, req, "tool input bytes edited in place")
			req.Messages[7].Role = RoleUser
			checkBody(t, c, req, "role changed")
			// A message that sends nothing, last and in the middle.
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: []Block{TextBlock("  \n")}})
			checkBody(t, c, req, "blank last message")
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: []Block{ThinkingBlock("hm", "")}})
			checkBody(t, c, req, "unsigned thinking last")
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: []Block{ThinkingBlock("hm", "sig"), TextBlock("x")}})
			checkBody(t, c, req, "signed thinking before text")
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: []Block{{Kind: BlockRedactedThinking, Data: "opaque"}}})
			checkBody(t, c, req, "redacted thinking only, last")
			// Compaction: a summary and the last turns.
			req.Messages = append([]Message{{Role: RoleUser, Content: []Block{TextBlock("summary")}}}, req.Messages[len(req.Messages)-6:]...)
			checkBody(t, c, req, "compacted")
			req.Messages = turn(req.Messages, 99)
			checkBody(t, c, req, "after compaction")
			// Instructions and tools change.
			req.System = "You are very careful."
			checkBody(t, c, req, "system changed")
			req.Tools[0].Schema[bytes.IndexByte(req.Tools[0].Schema, 'p')] = 'P'
			checkBody(t, c, req, "schema bytes edited in place")
			req.Tools = req.Tools[:2]
			checkBody(t, c, req, "a tool removed")
			req.Tools, req.System = nil, ""
			checkBody(t, c, req, "no tools, no system")
			// Another conversation in between, and back.
			other := Request{Model: "claude-haiku-4-5", Messages: turn([]Message{{Role: RoleUser, Content: []Block{TextBlock("sub")}}}, 7)}
			checkBody(t, c, other, "other conversation")
			checkBody(t, c, req, "back to the first")
			req.Messages = nil
			checkBody(t, c, req, "empty conversation")
		})
	}
}

// TestAnthropicBodyCacheRandom runs random edits of a conversation
// (appends, in-place edits, truncations, blank and thinking messages)
// through one client and checks every body against a fresh encoding.
func TestAnthropicBodyCacheRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 1))
	c := NewAnthropic(AnthropicConfig{APIKey: "k", PromptCaching: true})
	req := Request{Model: "m", System: "s", Tools: agentTools()}
	for step := range 400 {
		switch op := rng.IntN(10); {
		case op < 5 || len(req.Messages) == 0:
			req.Messages = turn(req.Messages, step)
		case op == 5:
			m := &req.Messages[rng.IntN(len(req.Messages))]
			if len(m.Content) > 0 {
				b := &m.Content[rng.IntN(len(m.Content))]
				b.Text, b.Content = b.Text+"!", b.Content+"?"
			}
		case op == 6:
			req.Messages = req.Messages[:rng.IntN(len(req.Messages))]
		case op == 7:
			req.Messages = append(req.Messages, Message{Role: RoleUser, Content: []Block{TextBlock(strings.Repeat(" ", rng.IntN(3)))}})
		case op == 8:
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: []Block{ThinkingBlock("t", []string{"", "sig"}[rng.IntN(2)])}})
		default:
			req.Messages = append([]Message(nil), req.Messages[rng.IntN(len(req.Messages)):]...)
		}
		checkBody(t, c, req, fmt.Sprintf("step %d", step))
	}
}

// TestAnthropicBodyCacheConcurrent encodes two conversations on one
// client at once (a subquery beside its run): each body is its own.
func TestAnthropicBodyCacheConcurrent(t *testing.T) {
	c := NewAnthropic(AnthropicConfig{APIKey: "k", PromptCaching: true})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			req := Request{Model: "m", System: fmt.Sprint("system ", g), Tools: agentTools()[:g+1]}
			for i := range 30 {
				req.Messages = turn(req.Messages, i*10+g)
				got, err := c.encode(req)
				if err != nil {
					t.Error(err)
					return
				}
				if want := referenceAnthropicBody(t, c, req); !bytes.Equal(got, want) {
					t.Errorf("conversation %d, turn %d: body differs from a fresh encoding", g, i)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkEncodeConversation times the encoding of one more request of a
// conversation of n tool round trips (7 tools, a 2 KB system prompt), as
// a loop sends it: without the body cache (uncached: the whole request
// encoded at once, as before the cache), afresh (the first request of a
// client, which fills the cache), and with the parts of the request
// before it kept (next: a loop's every later request).
func BenchmarkEncodeConversation(b *testing.B) {
	var tools []ToolSpec
	for i := range 7 {
		tools = append(tools, ToolSpec{Name: fmt.Sprintf("tool%d", i), Description: strings.Repeat("Describe the tool in words. ", 20),
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file to read"},"offset":{"type":"integer"}},"required":["path"]}`)})
	}
	for _, n := range []int{1, 25, 200} {
		req := Request{Model: "claude-sonnet-4-5", System: strings.Repeat("You are a coding agent. Be careful. ", 60), Tools: tools,
			Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("go")}}}}
		for i := range n {
			req.Messages = turn(req.Messages, i)
		}
		b.Run(fmt.Sprintf("turns=%d/uncached", n), func(b *testing.B) {
			c := NewAnthropic(AnthropicConfig{APIKey: "k", PromptCaching: true})
			for b.Loop() {
				referenceAnthropicBody(b, c, req)
			}
		})
		b.Run(fmt.Sprintf("turns=%d/fresh", n), func(b *testing.B) {
			for b.Loop() {
				c := NewAnthropic(AnthropicConfig{APIKey: "k", PromptCaching: true})
				if _, err := c.encode(req); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("turns=%d/next", n), func(b *testing.B) {
			c := NewAnthropic(AnthropicConfig{APIKey: "k", PromptCaching: true})
			prev := req
			prev.Messages = req.Messages[:len(req.Messages)-2]
			for b.Loop() {
				b.StopTimer()
				c.body = bodyCache{}
				if _, err := c.encode(prev); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := c.encode(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
