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

// referenceOpenAIBody is the Chat Completions body of req encoded
// afresh, all at once, as the client did before it kept parts between
// requests.
func referenceOpenAIBody(t testing.TB, c *OpenAIClient, req Request) []byte {
	t.Helper()
	w, err := c.settings(req)
	if err != nil {
		t.Fatal(err)
	}
	w.Messages = encodeOpenAIMessages(req.System, req.Messages)
	w.Tools = wireOpenAITools(req.Tools)
	body, err := marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// referenceResponsesBody is the Responses API body of req encoded
// afresh, all at once (HTML escaped, as json.Marshal does), as the client
// did before it kept parts between requests.
func referenceResponsesBody(t testing.TB, c *ResponsesClient, req Request) []byte {
	t.Helper()
	w := c.settings(req)
	w.Instructions = req.System
	w.Input = encodeResponsesInput(req.Messages)
	w.Tools = wireResponsesTools(req.Tools)
	body, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// bodyClient is a client that keeps the encoded parts of its requests,
// with the fresh encoding its bodies must equal.
type bodyClient struct {
	name      string
	encode    func(Request) ([]byte, error)
	reference func(testing.TB, Request) []byte
	cache     *bodyCache
	// kept is how many messages of req the cache holds after encoding it.
	kept func(req Request) int
}

// keptAll: every message of a request may come from the cache.
func keptAll(req Request) int { return len(req.Messages) }

func anthropicBodies(name string, cfg AnthropicConfig) bodyClient {
	c := NewAnthropic(cfg)
	// The last message sent carries the cache breakpoint: it is not kept.
	kept := func(req Request) int {
		n := len(req.Messages)
		for n > 0 && len(encodeAnthropicBlocks(req.Messages[n-1].Content)) == 0 {
			n--
		}
		return max(n-1, 0)
	}
	return bodyClient{name, c.encode, func(t testing.TB, req Request) []byte { return referenceAnthropicBody(t, c, req) }, &c.body, kept}
}

func openAIBodies(name string, cfg OpenAIConfig) bodyClient {
	c := NewOpenAI(cfg)
	return bodyClient{name, c.encode, func(t testing.TB, req Request) []byte { return referenceOpenAIBody(t, c, req) }, &c.body, keptAll}
}

func responsesBodies(name string, cfg ResponsesConfig) bodyClient {
	c := NewResponses(cfg)
	return bodyClient{name, c.encode, func(t testing.TB, req Request) []byte { return referenceResponsesBody(t, c, req) }, &c.body, keptAll}
}

// bodyClients returns a new client of each kind and setting that changes
// how a conversation is encoded.
func bodyClients() []bodyClient {
	return []bodyClient{
		anthropicBodies("anthropic", AnthropicConfig{APIKey: "k"}),
		anthropicBodies("anthropic-caching", AnthropicConfig{APIKey: "k", PromptCaching: true}),
		openAIBodies("openai", OpenAIConfig{APIKey: "k"}),
		openAIBodies("openai-completion-tokens", OpenAIConfig{MaxTokensField: "max_completion_tokens", NoStreamUsage: true}),
		responsesBodies("responses", ResponsesConfig{APIKey: "k"}),
		responsesBodies("responses-no-summary", ResponsesConfig{ReasoningSummary: "none"}),
	}
}

// checkBody encodes req with c and compares it with the reference; the
// cache then holds the messages it may reuse, and none the request does
// not hold.
func checkBody(t testing.TB, c bodyClient, req Request, step string) {
	t.Helper()
	got, err := c.encode(req)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	if want := c.reference(t, req); !bytes.Equal(got, want) {
		t.Fatalf("%s: body differs from a fresh encoding\n got: %s\nwant: %s", step, got, want)
	}
	if !json.Valid(got) {
		t.Fatalf("%s: invalid JSON %s", step, got)
	}
	c.cache.mu.Lock()
	kept := len(c.cache.msgs)
	c.cache.mu.Unlock()
	if want := c.kept(req); kept != want {
		t.Fatalf("%s: the cache keeps %d messages of a request of %d, want %d", step, kept, len(req.Messages), want)
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

// TestBodyCache proves that a client that keeps the encoded parts of its
// requests (Anthropic, Chat Completions, Responses) sends, request after
// request, exactly the body a fresh encoding gives: as an agent's
// conversation grows, when the caller edits its history in place (a
// block's text, a tool input's bytes, a signature), compacts it, ends it
// with messages that are not sent, changes its system prompt or its
// tools, or alternates two conversations.
func TestBodyCache(t *testing.T) {
	for _, c := range bodyClients() {
		t.Run(c.name, func(t *testing.T) {
			req := Request{Model: "gpt-5", System: "You are careful <&>.", Tools: agentTools(),
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
			// Reasoning items and tool calls as OpenAI's APIs carry them.
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: []Block{
				{Kind: BlockReasoning, ID: "rs_1", Text: "plan", Data: "enc1"}, TextBlock("calling"),
				ToolUseBlock("call_a", "bash", nil), {Kind: BlockToolUse, ID: "call_b", Name: "read", Input: json.RawMessage(" "), Signature: "gsig"}}})
			checkBody(t, c, req, "reasoning, then calls with empty arguments and a signature")
			req.Messages = append(req.Messages, Message{Role: RoleUser, Content: []Block{
				ToolResultBlock("call_a", "", false), ToolResultBlock("call_b", "<x> & y", true), TextBlock("and then")}})
			checkBody(t, c, req, "results and text")
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: []Block{
				TextBlock("so"), {Kind: BlockReasoning, ID: "rs_2", Data: "enc2"}, {Kind: BlockReasoning, ID: "rs_3"}}})
			checkBody(t, c, req, "trailing reasoning, with and without data")
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: []Block{{Kind: BlockReasoning, ID: "rs_4", Text: "t", Data: "enc4"}}})
			checkBody(t, c, req, "reasoning only, last")
			req.Messages = append(req.Messages, Message{Role: RoleUser, Content: []Block{ThinkingBlock("x", "")}})
			checkBody(t, c, req, "a user message that sends nothing, last")
			req.Messages = append(req.Messages, Message{Role: RoleUser, Content: []Block{TextBlock("next")}})
			checkBody(t, c, req, "after a message that sends nothing")
			calls := req.Messages[len(req.Messages)-6].Content
			calls[3].Signature = "gsig2"
			checkBody(t, c, req, "signature edited in place")
			calls[0].Data = "enc1b"
			checkBody(t, c, req, "reasoning data edited in place")
			req.Messages[len(req.Messages)-4].Content[2].Data = "enc3"
			checkBody(t, c, req, "trailing reasoning given data")
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
			req.Tools[1].Description = "Run a shell command."
			checkBody(t, c, req, "a description changed")
			req.Tools = req.Tools[:2]
			checkBody(t, c, req, "a tool removed")
			req.Tools, req.System = nil, ""
			checkBody(t, c, req, "no tools, no system")
			// Another conversation in between, and back.
			other := Request{Model: "o3", System: "sub", Tools: agentTools()[2:], MaxTokens: 100,
				Messages: turn([]Message{{Role: RoleUser, Content: []Block{TextBlock("sub")}}}, 7)}
			checkBody(t, c, other, "other conversation")
			checkBody(t, c, req, "back to the first")
			req.Messages = nil
			checkBody(t, c, req, "empty conversation")
			req.System = "s"
			checkBody(t, c, req, "empty conversation with a system prompt")
		})
	}
}

// randomMessage returns a message of random blocks of every kind the
// clients send or leave out.
func randomMessage(rng *rand.Rand, step int) Message {
	texts := []string{"", " ", "a <b> & c", "x\n"}
	id := fmt.Sprint("call_", step)
	var blocks []Block
	for range rng.IntN(4) {
		switch rng.IntN(6) {
		case 0:
			blocks = append(blocks, TextBlock(texts[rng.IntN(len(texts))]))
		case 1:
			blocks = append(blocks, Block{Kind: BlockToolUse, ID: id, Name: "bash",
				Input: json.RawMessage([]string{"", `{"a": "<b>"}`, "[1]"}[rng.IntN(3)]), Signature: []string{"", "gsig"}[rng.IntN(2)]})
		case 2:
			blocks = append(blocks, ToolResultBlock(id, texts[rng.IntN(len(texts))], rng.IntN(2) == 0))
		case 3:
			blocks = append(blocks, Block{Kind: BlockReasoning, ID: "rs_" + id, Text: texts[rng.IntN(len(texts))], Data: []string{"", "enc"}[rng.IntN(2)]})
		case 4:
			blocks = append(blocks, ThinkingBlock("t", []string{"", "sig"}[rng.IntN(2)]))
		default:
			blocks = append(blocks, Block{Kind: BlockRedactedThinking, Data: "opaque"})
		}
	}
	return Message{Role: []Role{RoleUser, RoleAssistant}[rng.IntN(2)], Content: blocks}
}

// TestBodyCacheRandom runs random edits of a conversation (appends,
// in-place edits, truncations, messages of random blocks, compactions,
// system and tool changes) through one client of each kind and checks
// every body against a fresh encoding.
func TestBodyCacheRandom(t *testing.T) {
	for _, c := range bodyClients() {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, 1))
			req := Request{Model: "m", System: "s", Tools: agentTools()}
			for step := range 400 {
				switch op := rng.IntN(12); {
				case op < 5 || len(req.Messages) == 0:
					req.Messages = turn(req.Messages, step)
				case op == 5:
					m := &req.Messages[rng.IntN(len(req.Messages))]
					if len(m.Content) > 0 {
						b := &m.Content[rng.IntN(len(m.Content))]
						b.Text, b.Content, b.Data = b.Text+"!", b.Content+"?", b.Data+"+"
					}
				case op == 6:
					req.Messages = req.Messages[:rng.IntN(len(req.Messages))]
				case op == 7:
					req.Messages = append(req.Messages, Message{Role: RoleUser, Content: []Block{TextBlock(strings.Repeat(" ", rng.IntN(3)))}})
				case op == 8:
					req.Messages = append(req.Messages, randomMessage(rng, step))
				case op == 9:
					req.System = []string{"", "s", "t <u>"}[rng.IntN(3)]
				case op == 10:
					req.Tools = agentTools()[:rng.IntN(4)]
				default:
					req.Messages = append([]Message(nil), req.Messages[rng.IntN(len(req.Messages)):]...)
				}
				checkBody(t, c, req, fmt.Sprintf("step %d", step))
			}
		})
	}
}

// TestBodyCacheConcurrent encodes two conversations on one client of
// each kind at once (a subquery beside its run): each body is its own.
func TestBodyCacheConcurrent(t *testing.T) {
	for _, c := range bodyClients() {
		t.Run(c.name, func(t *testing.T) {
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
						if want := c.reference(t, req); !bytes.Equal(got, want) {
							t.Errorf("conversation %d, turn %d: body differs from a fresh encoding", g, i)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}

// BenchmarkEncodeConversation times the encoding of one more request of a
// conversation of n tool round trips (7 tools, a 2 KB system prompt), as
// a loop sends it, for each client: without the body cache (uncached: the
// whole request encoded at once, as before the cache), afresh (the first
// request of a client, which fills the cache), and with the parts of the
// request before it kept (next: a loop's every later request).
func BenchmarkEncodeConversation(b *testing.B) {
	var tools []ToolSpec
	for i := range 7 {
		tools = append(tools, ToolSpec{Name: fmt.Sprintf("tool%d", i), Description: strings.Repeat("Describe the tool in words. ", 20),
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file to read"},"offset":{"type":"integer"}},"required":["path"]}`)})
	}
	clients := []struct {
		name, model string
		client      func() bodyClient
	}{
		{"anthropic", "claude-sonnet-4-5", func() bodyClient { return anthropicBodies("", AnthropicConfig{APIKey: "k", PromptCaching: true}) }},
		{"openai", "gpt-4.1", func() bodyClient { return openAIBodies("", OpenAIConfig{APIKey: "k"}) }},
		{"responses", "gpt-5", func() bodyClient { return responsesBodies("", ResponsesConfig{APIKey: "k"}) }},
	}
	for _, cl := range clients {
		for _, n := range []int{1, 25, 200} {
			req := Request{Model: cl.model, System: strings.Repeat("You are a coding agent. Be careful. ", 60), Tools: tools,
				Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("go")}}}}
			for i := range n {
				req.Messages = turn(req.Messages, i)
			}
			b.Run(fmt.Sprintf("%s/turns=%d/uncached", cl.name, n), func(b *testing.B) {
				c := cl.client()
				for b.Loop() {
					c.reference(b, req)
				}
			})
			b.Run(fmt.Sprintf("%s/turns=%d/fresh", cl.name, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := cl.client().encode(req); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/turns=%d/next", cl.name, n), func(b *testing.B) {
				c := cl.client()
				prev := req
				prev.Messages = req.Messages[:len(req.Messages)-2]
				for b.Loop() {
					b.StopTimer()
					*c.cache = bodyCache{}
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
}
