package llm

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// oaiContent is a chunk's delta.content: a string, null, or (Mistral, some
// gateways) a list of typed parts — text parts {"type":"text","text":…}
// and thinking parts {"type":"thinking","thinking":[{"type":"text",…}]}
// (or with the thinking as a string). Text is the text parts joined;
// Thinking the thinking parts joined. Parts of other types are ignored.
type oaiContent struct {
	Text     string
	Thinking string
}

// UnmarshalJSON reads the string, null or list form.
func (c *oaiContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		if string(b) == "null" {
			return nil
		}
		if s, ok := plainJSONString(b); ok {
			c.Text = s
			return nil
		}
		return json.Unmarshal(b, &c.Text)
	}
	var parts []oaiContentPart
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var text, thinking strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text", "output_text", "":
			text.WriteString(p.Text)
		case "thinking", "reasoning":
			thinking.WriteString(p.Thinking.Text)
			thinking.WriteString(p.Text)
		}
	}
	c.Text, c.Thinking = text.String(), thinking.String()
	return nil
}

// plainJSONString returns the JSON string literal b when it needs no
// decoding (no escapes, valid UTF-8), saving the decoder's allocations on
// the common path; ok is false otherwise.
func plainJSONString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	in := b[1 : len(b)-1]
	for _, c := range in {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(in) {
		return "", false
	}
	return string(in), true
}

type oaiContentPart struct {
	Type     string         `json:"type"`
	Text     string         `json:"text"`
	Thinking oaiThinkingVal `json:"thinking"`
}

// oaiThinkingVal is a thinking part's thinking: a string or a list of
// text parts.
type oaiThinkingVal struct{ Text string }

// UnmarshalJSON reads the string or list form.
func (v *oaiThinkingVal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		if string(b) == "null" {
			return nil
		}
		return json.Unmarshal(b, &v.Text)
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
	}
	v.Text = sb.String()
	return nil
}

// Gemini's OpenAI-compatible endpoint, asked to include thoughts, sends
// them at the start of the content between these tags.
const (
	thoughtOpen  = "<thought>"
	thoughtClose = "</thought>"
)

// thoughtSplitter separates the thought-tagged start of a content stream
// from the answer. The opening tag counts only before any answer text; a
// tag split across chunks is held back until the next chunk shows whether
// it is one. It is deterministic in the chunks, not in how bytes arrive.
type thoughtSplitter struct {
	inThought bool
	answered  bool   // answer text was emitted: no more opening tags
	pending   string // held back: a possible start of a tag
}

// split returns the thinking and text in s (after what was held back).
func (t *thoughtSplitter) split(s string) (thinking, text string) {
	s = t.pending + s
	t.pending = ""
	var th, tx strings.Builder
	for s != "" {
		if t.inThought {
			if i := strings.Index(s, thoughtClose); i >= 0 {
				th.WriteString(s[:i])
				s, t.inThought = s[i+len(thoughtClose):], false
				continue
			}
			k := tagPrefixSuffix(s, thoughtClose)
			th.WriteString(s[:len(s)-k])
			t.pending = s[len(s)-k:]
			break
		}
		if t.answered {
			tx.WriteString(s)
			break
		}
		trimmed := strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(trimmed, thoughtOpen):
			s, t.inThought = trimmed[len(thoughtOpen):], true
		case trimmed == "" || strings.HasPrefix(thoughtOpen, trimmed):
			t.pending = s
			s = ""
		default:
			t.answered = true
		}
	}
	return th.String(), tx.String()
}

// flush returns what was held back, as thinking when inside a thought.
func (t *thoughtSplitter) flush() (thinking, text string) {
	p := t.pending
	t.pending = ""
	if t.inThought {
		return p, ""
	}
	return "", p
}

// tagPrefixSuffix returns the length of the longest suffix of s that is a
// proper prefix of tag.
func tagPrefixSuffix(s, tag string) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}
