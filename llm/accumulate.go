package llm

import (
	"fmt"
	"strings"
)

// accumulator assembles streamed deltas into a message and queues the
// events they produce. It is the one place where deltas become blocks; every
// protocol violation it sees (a block started out of order, a delta or stop
// for a block that was never started or already stopped, a delta of the
// wrong type) is an error.
type accumulator struct {
	blocks   []accBlock
	usage    Usage
	stop     StopReason
	streamed bool // a content event (text, thinking, tool use) was queued
	// respID and respModel are the response's id and model, as sent.
	respID, respModel string

	queue []Event
	next  int // index of the next event of queue to deliver

	// limit caps size, the bytes of text, thinking, signatures and tool
	// input kept for the message; 0 means no cap.
	limit, size int64
	overflow    *responseTooLarge // set when size passed limit
}

// responseTooLarge is the error of an answer past the accumulator's cap;
// the stream fails with a [KindProtocol] error that is not retryable.
type responseTooLarge struct{ limit int64 }

func (e *responseTooLarge) Error() string {
	return fmt.Sprintf("the answer exceeded the cap of %s on text, thinking and tool input kept per response", formatBytes(e.limit))
}

// grow accounts for n more bytes kept, failing past the cap.
func (a *accumulator) grow(n int) error {
	a.size += int64(n)
	if a.limit > 0 && a.size > a.limit {
		a.overflow = &responseTooLarge{limit: a.limit}
		return a.overflow
	}
	return nil
}

// formatBytes writes n as "32 MB", "512 KB" or "100 bytes".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

type accBlock struct {
	kind      BlockKind
	id, name  string
	signature string
	data      string
	buf       chunkBuf // text, thinking text or tool input JSON
	open      bool
	isErr     bool // BlockServerToolResult
	seeded    bool // buf holds the input sent with the block's start, replaced by the first delta
	skip      bool // a block type this package does not know; kept out of the message
}

func (a *accumulator) emit(ev Event) {
	if ev.Kind == EventText || ev.Kind == EventThinking || ev.Kind == EventToolUse || ev.Kind == EventServerTool {
		a.streamed = true
	}
	a.queue = append(a.queue, ev)
}

// pop returns the next queued event.
func (a *accumulator) pop() (Event, bool) {
	if a.next >= len(a.queue) {
		a.queue, a.next = a.queue[:0], 0
		return Event{}, false
	}
	ev := a.queue[a.next]
	a.queue[a.next] = Event{}
	a.next++
	return ev, true
}

// start opens block index, which must be the next one. b's Text (for text
// and thinking) or Input (for tool use) seeds the block's content.
func (a *accumulator) start(index int, b Block) error {
	if index != len(a.blocks) {
		return fmt.Errorf("content block %d started out of order (expected %d)", index, len(a.blocks))
	}
	ab := accBlock{kind: b.Kind, id: b.ID, name: b.Name, signature: b.Signature, data: b.Data, open: true}
	a.blocks = append(a.blocks, ab)
	if err := a.grow(len(b.Signature) + len(b.Data)); err != nil {
		return err
	}
	switch b.Kind {
	case BlockText, BlockThinking:
		if b.Text != "" {
			return a.appendText(index, b.Kind, b.Text)
		}
	case BlockToolUse, BlockServerToolUse:
		if err := a.grow(len(b.Input)); err != nil {
			return err
		}
		a.blocks[index].buf.WriteString(string(b.Input))
		a.blocks[index].seeded = len(b.Input) > 0
	case BlockServerToolResult:
		a.blocks[index].id, a.blocks[index].name, a.blocks[index].isErr = b.ToolUseID, b.Name, b.IsError
		if err := a.grow(len(b.Content)); err != nil {
			return err
		}
		a.blocks[index].buf.WriteString(b.Content)
	case BlockRedactedThinking, BlockReasoning:
	default:
		a.blocks[index].skip = true
	}
	return nil
}

// skipped reports whether block index was started as a type this package
// does not model, so that any delta for it, whatever its type, is ignored.
func (a *accumulator) skipped(index int) bool {
	return index >= 0 && index < len(a.blocks) && a.blocks[index].skip
}

// kindOf returns the kind of block index, or 0 when there is none.
func (a *accumulator) kindOf(index int) BlockKind {
	if index < 0 || index >= len(a.blocks) {
		return 0
	}
	return a.blocks[index].kind
}

// startUnknown opens a block of a type this package does not model; its
// deltas are ignored and it is left out of the message.
func (a *accumulator) startUnknown(index int) error {
	return a.start(index, Block{})
}

func (a *accumulator) block(index int, op string) (*accBlock, error) {
	if index < 0 || index >= len(a.blocks) {
		return nil, fmt.Errorf("%s for unknown content block %d", op, index)
	}
	b := &a.blocks[index]
	if !b.open {
		return nil, fmt.Errorf("%s for content block %d after it stopped", op, index)
	}
	return b, nil
}

// typed returns the open block index for a delta of op; the block must
// be of kind.
func (a *accumulator) typed(index int, op string, kind BlockKind) (*accBlock, error) {
	b, err := a.block(index, op)
	if err != nil {
		return nil, err
	}
	if b.kind != kind {
		return nil, fmt.Errorf("%s for %s content block %d", op, b.kind, index)
	}
	return b, nil
}

// appendText adds text to a text or thinking block and queues its event.
func (a *accumulator) appendText(index int, kind BlockKind, s string) error {
	b, err := a.typed(index, kind.String()+" delta", kind)
	if err != nil || s == "" {
		return err
	}
	if err := a.grow(len(s)); err != nil {
		return err
	}
	b.buf.WriteString(s)
	if kind == BlockText {
		a.emit(Event{Kind: EventText, Text: s})
	} else {
		a.emit(Event{Kind: EventThinking, Text: s})
	}
	return nil
}

// appendInput adds a piece of a tool call's argument JSON; the call may be
// a server tool's.
func (a *accumulator) appendInput(index int, s string) error {
	kind := BlockToolUse
	if b, err := a.block(index, "input delta"); err == nil && b.kind == BlockServerToolUse {
		kind = BlockServerToolUse
	}
	b, err := a.typed(index, "input delta", kind)
	if err != nil {
		return err
	}
	if b.seeded {
		a.size -= int64(b.buf.Len())
		b.buf.Reset()
		b.seeded = false
	}
	if err := a.grow(len(s)); err != nil {
		return err
	}
	b.buf.WriteString(s)
	return nil
}

// appendSignature adds to a thinking block's signature.
func (a *accumulator) appendSignature(index int, s string) error {
	b, err := a.typed(index, "signature delta", BlockThinking)
	if err != nil {
		return err
	}
	if err := a.grow(len(s)); err != nil {
		return err
	}
	b.signature += s
	return nil
}

// ignoreDelta checks that a delta of an unknown type targets an open block.
func (a *accumulator) ignoreDelta(index int) error {
	_, err := a.block(index, "delta")
	return err
}

// stopBlock closes block index; a tool call is complete now and queued as
// an event.
func (a *accumulator) stopBlock(index int) error {
	b, err := a.block(index, "stop")
	if err != nil {
		return err
	}
	b.open = false
	switch b.kind {
	case BlockToolUse, BlockServerToolUse:
		if b.buf.blank() {
			b.buf.Reset()
			b.buf.WriteString("{}")
		}
		kind := EventToolUse
		if b.kind == BlockServerToolUse {
			kind = EventServerTool
		}
		a.emit(Event{Kind: kind, ToolUse: b.toBlock()})
	case BlockServerToolResult:
		a.emit(Event{Kind: EventServerTool, ToolUse: b.toBlock()})
	}
	return nil
}

// setUsage records the usage so far and queues it as an event.
func (a *accumulator) setUsage(u Usage) {
	a.usage = u
	a.emit(Event{Kind: EventUsage, Usage: u})
}

// openBlock returns the index of a block still open, or -1.
func (a *accumulator) openBlock() int {
	for i := range a.blocks {
		if a.blocks[i].open {
			return i
		}
	}
	return -1
}

// hasToolUse reports whether a tool call was completed.
func (a *accumulator) hasToolUse() bool {
	for i := range a.blocks {
		if a.blocks[i].kind == BlockToolUse && !a.blocks[i].open {
			return true
		}
	}
	return false
}

// finish queues the stop event.
func (a *accumulator) finish() {
	a.emit(Event{Kind: EventStop, StopReason: a.stop, Usage: a.usage, ResponseID: a.respID, ResponseModel: a.respModel})
}

func (b *accBlock) toBlock() Block {
	out := Block{Kind: b.kind}
	switch b.kind {
	case BlockText:
		out.Text = b.buf.String()
	case BlockThinking:
		out.Text, out.Signature = b.buf.String(), b.signature
	case BlockRedactedThinking:
		out.Data = b.data
	case BlockToolUse, BlockServerToolUse:
		out.ID, out.Name, out.Signature = b.id, b.name, b.signature
		out.Input = b.buf.Bytes()
	case BlockServerToolResult:
		out.ToolUseID, out.Name, out.Content, out.IsError = b.id, b.name, b.buf.String(), b.isErr
	case BlockReasoning:
		out.ID, out.Text, out.Data = b.id, b.buf.String(), b.data
	}
	return out
}

// message returns the assistant message assembled so far. Text and thinking
// blocks still open are included as far as they got; a tool call that never
// completed is left out, so a cut stream never yields a half-formed call;
// so are other blocks still open (server tool blocks, reasoning items).
// Empty text blocks, which the APIs reject in requests, are left out too.
func (a *accumulator) message() Message {
	m := Message{Role: RoleAssistant, Content: make([]Block, 0, len(a.blocks))}
	for i := range a.blocks {
		b := &a.blocks[i]
		if b.skip || (b.open && b.kind != BlockText && b.kind != BlockThinking) ||
			(b.kind == BlockText && b.buf.Len() == 0) {
			continue
		}
		m.Content = append(m.Content, b.toBlock())
	}
	return m
}

// chunkBuf is a growing byte buffer kept in chunks: it never copies what
// it holds to grow, so an answer near the size cap needs its size in
// memory, not twice that while a contiguous buffer is reallocated.
type chunkBuf struct {
	chunks [][]byte
	n      int
}

// Chunk sizes of [chunkBuf]: each new chunk is as large as what the buffer
// holds already, within these bounds.
const (
	minChunk = 512
	maxChunk = 1 << 20
)

func (c *chunkBuf) WriteString(s string) {
	c.n += len(s)
	for len(s) > 0 {
		if k := len(c.chunks); k == 0 || len(c.chunks[k-1]) == cap(c.chunks[k-1]) {
			size := min(max(c.n-len(s), minChunk, len(s)), maxChunk)
			c.chunks = append(c.chunks, make([]byte, 0, size))
		}
		last := &c.chunks[len(c.chunks)-1]
		m := min(len(s), cap(*last)-len(*last))
		*last = append(*last, s[:m]...)
		s = s[m:]
	}
}

func (c *chunkBuf) Len() int { return c.n }

// blank reports whether the content is empty or only JSON whitespace.
func (c *chunkBuf) blank() bool {
	for _, ch := range c.chunks {
		for _, b := range ch {
			if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
				return false
			}
		}
	}
	return true
}

func (c *chunkBuf) Reset() { c.chunks, c.n = nil, 0 }

// Bytes returns the content as one new slice.
func (c *chunkBuf) Bytes() []byte {
	out := make([]byte, 0, c.n)
	for _, ch := range c.chunks {
		out = append(out, ch...)
	}
	return out
}

func (c *chunkBuf) String() string {
	if len(c.chunks) == 1 {
		return string(c.chunks[0])
	}
	var b strings.Builder
	b.Grow(c.n)
	for _, ch := range c.chunks {
		b.Write(ch)
	}
	return b.String()
}
