package agent

import (
	"strings"
	"unicode"

	"github.com/rubichan/rubichan/llm"
)

// prefill returns the text a retry may send as the final assistant message
// for the API to continue (Anthropic's prefill): the shown text without
// its trailing whitespace, which the API refuses. It is not offered when
// the cut attempt streamed anything but text (thinking, a tool call), when
// the shown text was not kept whole, or when it is only whitespace.
func (r *retext) prefill() (string, bool) {
	if r.other || r.n == 0 || r.n > len(r.shown) {
		return "", false
	}
	p := strings.TrimRightFunc(string(r.shown), unicode.IsSpace)
	return p, p != ""
}

// block notes that the current attempt streamed a block other than text:
// the answer is not continued, and whitespace after the block is its own.
func (r *retext) block() {
	r.other = true
	r.ws = ""
}

// trim drops from a continuation's text what repeats the whitespace that
// was shown but left out of the prefill, so nothing is printed twice.
func (r *retext) trim(t string) string {
	for r.ws != "" && t != "" && t[0] == r.ws[0] {
		t, r.ws = t[1:], r.ws[1:]
		r.skip++
	}
	if t != "" {
		r.ws = ""
	}
	return t
}

// join makes m, the answer of a continuation, the whole answer: the shown
// text it continued, then its own content, the whitespace [retext.trim]
// dropped left out. It returns m as it is for an attempt that was not a
// continuation.
func (r *retext) join(m llm.Message) llm.Message {
	if r.base == "" {
		return m
	}
	content := make([]llm.Block, 0, len(m.Content)+1)
	if len(m.Content) > 0 && m.Content[0].Kind == llm.BlockText {
		first := m.Content[0]
		first.Text = r.base + first.Text[min(r.skip, len(first.Text)):]
		content = append(append(content, first), m.Content[1:]...)
	} else {
		content = append(append(content, llm.TextBlock(r.base)), m.Content...)
	}
	m.Content = content
	return m
}

// withPrefill returns req ended with prefill as an assistant message, or
// req as it is when prefill is "".
func withPrefill(req llm.Request, prefill string) llm.Request {
	if prefill == "" {
		return req
	}
	msgs := make([]llm.Message, 0, len(req.Messages)+1)
	msgs = append(append(msgs, req.Messages...), llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock(prefill)}})
	req.Messages = msgs
	return req
}
