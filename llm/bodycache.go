package llm

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
)

// bodyCache keeps the encoded parts of a client's last request body that
// the next one most likely repeats: the system prompt, the tool specs and
// each message (for Anthropic each but the last sent, which carries the
// conversation's cache breakpoint; the Chat Completions and Responses
// clients keep every one). An agent loop sends the same instructions and
// tools every turn, with a conversation that only grows, so without it
// each request encoded the whole conversation again — the loop's largest
// cost per turn after the network, growing with every turn. At 25 and 200
// tool round trips (BenchmarkEncodeConversation): Anthropic 55 and 265 µs,
// with it 10 and 45 µs; Chat Completions 35 and 140 µs, with it 8 and
// 35 µs; Responses 40 and 190 µs, with it 8 and 33 µs.
//
// A part is reused only when what it was encoded from is equal to what
// the request holds now, compared field by field — strings by value
// (equal strings that share memory compare at once), raw JSON by a copy
// kept with the part, since a caller may rewrite a byte slice in place —
// so a body is byte for byte what encoding the request afresh gives
// (TestBodyCache). A caller that edits its history (compaction, a
// redaction, a prefill) only pays for the messages it changed.
//
// It is safe for concurrent use; callers that alternate conversations
// (a subquery's beside the run's) get correct bodies and fewer reuses.
type bodyCache struct {
	mu     sync.Mutex
	system string
	sysEnc []byte // nil: not encoded yet
	tools  []ToolSpec
	tlEnc  []byte // nil: not encoded yet
	msgs   []cachedMessage
}

// cachedMessage is one message as it was encoded, without a cache
// breakpoint: empty enc means it encoded to nothing (it is left out).
type cachedMessage struct {
	role   Role
	blocks []Block // with Input copied
	enc    []byte
}

// head returns the encoded system prompt for system, encoding it with
// encode when it changed.
func (c *bodyCache) head(system string, encode func(string) (json.RawMessage, error)) ([]byte, error) {
	if c.sysEnc != nil && c.system == system {
		return c.sysEnc, nil
	}
	enc, err := encode(system)
	if err != nil {
		return nil, err
	}
	c.system, c.sysEnc = system, enc
	return enc, nil
}

// toolSpecs returns the encoded tool specs for tools, encoding them with
// encode when they changed.
func (c *bodyCache) toolSpecs(tools []ToolSpec, encode func([]ToolSpec) ([]byte, error)) ([]byte, error) {
	if c.tlEnc != nil && sameTools(c.tools, tools) {
		return c.tlEnc, nil
	}
	enc, err := encode(tools)
	if err != nil {
		return nil, err
	}
	c.tools, c.tlEnc = cloneTools(tools), enc
	return enc, nil
}

// message returns message i of the conversation encoded without a cache
// breakpoint, reusing what was encoded for it when it has not changed.
func (c *bodyCache) message(i int, m Message, encode func(Message) ([]byte, error)) ([]byte, error) {
	if i < len(c.msgs) && c.msgs[i].role == m.Role && sameBlocks(c.msgs[i].blocks, m.Content) {
		return c.msgs[i].enc, nil
	}
	enc, err := encode(m)
	if err != nil {
		return nil, err
	}
	if i > len(c.msgs) {
		return enc, nil // not reached in order: not kept
	}
	c.msgs = append(c.msgs[:i], cachedMessage{role: m.Role, blocks: cloneBlocks(m.Content), enc: enc})
	return enc, nil
}

// forget drops the messages from n on: a request holds only n.
func (c *bodyCache) forget(n int) {
	if n < len(c.msgs) {
		clear(c.msgs[n:])
		c.msgs = c.msgs[:n]
	}
}

func sameTools(a, b []ToolSpec) bool {
	return slices.EqualFunc(a, b, func(x, y ToolSpec) bool {
		return x.Name == y.Name && x.Description == y.Description && bytes.Equal(x.Schema, y.Schema)
	})
}

func cloneTools(tools []ToolSpec) []ToolSpec {
	out := slices.Clone(tools)
	for i := range out {
		out[i].Schema = bytes.Clone(out[i].Schema)
	}
	return out
}

func sameBlocks(a, b []Block) bool {
	return slices.EqualFunc(a, b, func(x, y Block) bool {
		return x.Kind == y.Kind && x.Text == y.Text && x.ID == y.ID && x.Name == y.Name &&
			bytes.Equal(x.Input, y.Input) &&
			x.ToolUseID == y.ToolUseID && x.Content == y.Content && x.IsError == y.IsError &&
			x.Signature == y.Signature && x.Data == y.Data
	})
}

func cloneBlocks(blocks []Block) []Block {
	out := slices.Clone(blocks)
	for i := range out {
		if out[i].Input != nil {
			out[i].Input = bytes.Clone(out[i].Input)
		}
	}
	return out
}

// messages appends to parts the encoded messages of msgs that send
// something, each reused when it has not changed, and keeps msgs only:
// for clients whose every message may come from the cache.
func (c *bodyCache) messages(parts [][]byte, msgs []Message, encode func(Message) ([]byte, error)) ([][]byte, error) {
	for i, m := range msgs {
		enc, err := c.message(i, m, encode)
		if err != nil {
			return nil, err
		}
		if len(enc) > 0 {
			parts = append(parts, enc)
		}
	}
	c.forget(len(msgs))
	return parts, nil
}

// encodeElements encodes items with enc as the elements of a JSON array,
// without its brackets: what one message adds to the array its request
// sends; nil when it adds nothing.
func encodeElements[T any](items []T, enc func(any) ([]byte, error)) ([]byte, error) {
	if len(items) == 0 {
		return nil, nil
	}
	b, err := enc(items)
	return elements(b), err
}

// elements returns the encoded JSON array enc without its brackets, as
// its elements are written inside a larger array; nil when it is empty.
func elements(enc []byte) []byte {
	if len(enc) <= len("[]") {
		return nil
	}
	return enc[1 : len(enc)-1]
}

// member is one member of a request body written from its parts: raw
// JSON (left out when nil), or, when array is set, parts as the elements
// of a JSON array.
type member struct {
	key   string
	raw   []byte
	parts [][]byte
	array bool
}

// joinBody writes a request body from its encoded parts: the members of
// the JSON object head, then members in order, then those of the JSON
// object opts. head and opts are not empty objects.
func joinBody(head, opts []byte, members ...member) []byte {
	size := len(head) + len(opts)
	for _, m := range members {
		size += len(m.key) + len(`,"":[]`) + len(m.raw)
		for _, p := range m.parts {
			size += len(p) + 1
		}
	}
	body := make([]byte, 0, size)
	body = append(body, head[:len(head)-1]...) // without its }
	for _, m := range members {
		if !m.array && m.raw == nil {
			continue
		}
		body = append(append(append(body, `,"`...), m.key...), `":`...)
		if !m.array {
			body = append(body, m.raw...)
			continue
		}
		body = append(body, '[')
		for i, p := range m.parts {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, p...)
		}
		body = append(body, ']')
	}
	return append(append(body, ','), opts[1:]...)
}
