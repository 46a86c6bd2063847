package agent

import (
	"math"

	"github.com/rubichan/rubichan/llm"
)

// Compact says when the Agent compacts its conversation. A zero Window
// turns compaction off.
type Compact struct {
	Window    int     // the model's context window, in tokens
	MaxOutput int     // the model's output limit, in tokens
	At        float64 // compact past this share of Window minus the output reserve; 0: defaultCompactAt
	// Preface opens the user message that carries the summary (the
	// harness gives the session format's, which a resume recognises).
	Preface string
}

// defaultCompactAt is the share of the usable window (the window minus the
// output reserve) past which the loop compacts.
const defaultCompactAt = 0.8

// keepShare is the share of the window the most recent turns keep when the
// loop compacts; retryKeepShare the smaller share of the second compaction
// after a provider's context-length error.
const (
	keepShare      = 0.20
	retryKeepShare = 0.10
)

// outputReserve is the part of the window kept free for the answer: the
// model's output limit, but no more than the client asks for by default.
func (c Compact) outputReserve() int {
	r := c.MaxOutput
	if r <= 0 || r > llm.DefaultAnthropicMaxTokens {
		r = llm.DefaultAnthropicMaxTokens
	}
	if r > c.Window/2 {
		r = c.Window / 2
	}
	return r
}

// threshold is the estimated request size, in tokens, past which the loop
// compacts first.
func (c Compact) threshold() int {
	at := c.At
	if at <= 0 {
		at = defaultCompactAt
	}
	return int(at * float64(c.Window-c.outputReserve()))
}

// tokenEstimator estimates the input tokens of the next request without
// encoding the conversation again: the input tokens the provider reported
// for the last request plus the bytes added since, divided by a bytes per
// token ratio calibrated against the reported usage. It measures each
// message once, when it first sees it, so an estimate costs O(new
// content). Not safe for concurrent use.
type tokenEstimator struct {
	fixed int   // bytes of the system prompt and the tool specs
	sizes []int // bytes of each message measured, by index
	total int   // the sum of sizes

	lastInput int // input tokens the provider reported for the last request; 0: unknown
	sentTotal int // total when the last request was sent
	perToken  float64
}

// initialBytesPerToken is the ratio before any usage was reported: a
// little under the usual 4 bytes of English or code per token, so that the
// first estimates err high.
const initialBytesPerToken = 3.5

func newTokenEstimator(system string, specs []llm.ToolSpec) *tokenEstimator {
	e := &tokenEstimator{fixed: len(system), perToken: initialBytesPerToken}
	for _, s := range specs {
		e.fixed += len(s.Name) + len(s.Description) + len(s.Schema) + 32
	}
	return e
}

// messageBytes is the size of m counted by the estimator: its text, tool
// inputs and results, IDs and payloads, and a little for the framing.
func messageBytes(m llm.Message) int {
	n := 8
	for _, b := range m.Content {
		n += 16 + len(b.Text) + len(b.ID) + len(b.Name) + len(b.Input) + len(b.ToolUseID) + len(b.Content) + len(b.Signature) + len(b.Data)
	}
	return n
}

// measure sizes the messages not yet measured.
func (e *tokenEstimator) measure(msgs []llm.Message) {
	for _, m := range msgs[len(e.sizes):] {
		s := messageBytes(m)
		e.sizes = append(e.sizes, s)
		e.total += s
	}
}

// reset forgets the measured messages and the last reported usage: the
// conversation was replaced.
func (e *tokenEstimator) reset(msgs []llm.Message) {
	e.sizes, e.total, e.lastInput, e.sentTotal = e.sizes[:0], 0, 0, 0
	e.measure(msgs)
}

// tokens converts bytes to tokens at the calibrated ratio, rounding up.
func (e *tokenEstimator) tokens(bytes int) int {
	return int(math.Ceil(float64(bytes) / e.perToken))
}

// estimate returns the estimated input tokens of a request sending msgs.
func (e *tokenEstimator) estimate(msgs []llm.Message) int {
	e.measure(msgs)
	if e.lastInput > 0 {
		return e.lastInput + e.tokens(e.total-e.sentTotal)
	}
	return e.tokens(e.fixed + e.total)
}

// sent records that a request with the measured messages is being sent.
func (e *tokenEstimator) sent() { e.sentTotal = e.total }

// observe records the input tokens the provider reported for the request
// last sent and calibrates the ratio against it.
func (e *tokenEstimator) observe(u llm.Usage) {
	in := u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
	if in <= 0 {
		return
	}
	e.lastInput = in
	r := float64(e.fixed+e.sentTotal) / float64(in)
	r = min(max(r, 1.0), 8.0)
	// A moving average: one odd request (a cache quirk) does not swing it.
	e.perToken = 0.5*e.perToken + 0.5*r
}

// tailSplit returns the index the kept tail of msgs starts at: an
// assistant message, so that no tool call is parted from its result,
// after the first user message and with at least one assistant message
// before it, and with at least keep tokens from it to the end. It returns
// 0 when there is no such index: nothing worth summarising.
func (e *tokenEstimator) tailSplit(msgs []llm.Message, keep int) int {
	e.measure(msgs)
	acc := 0
	for i := len(msgs) - 1; i >= 2; i-- {
		acc += e.sizes[i]
		if msgs[i].Role != llm.RoleAssistant || e.tokens(acc) < keep {
			continue
		}
		for j := 1; j < i; j++ {
			if msgs[j].Role == llm.RoleAssistant {
				return i
			}
		}
		return 0
	}
	return 0
}
