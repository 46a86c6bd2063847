package session

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parseConv decodes a "user" or "assistant" line of the shape [Writer]
// writes, without reflection and in one pass: a resume of a long session
// spends its time here. ok is false for anything else (a key it does not
// know, an odd escape, invalid UTF-8), and the caller falls back to
// encoding/json, whose result it otherwise equals.
func parseConv(line []byte) (l Line, ok bool) {
	p := &scanner{b: line}
	ok = p.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return p.str(&l.Type)
		case "time":
			return p.str(&l.Time)
		case "api":
			return p.str(&l.API)
		case "model":
			return p.str(&l.Model)
		case "redacted":
			return p.str(&l.Redacted)
		case "turn":
			return p.int(&l.Turn)
		case "blocks":
			return p.blocks(&l.Content)
		}
		return false
	})
	return l, ok && p.end()
}

// scanner reads JSON from b at i. Its methods return false on anything
// they do not handle; the scanner is then abandoned.
type scanner struct {
	b []byte
	i int
}

func (p *scanner) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *scanner) byte(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// object reads an object, calling field after each key and its colon.
func (p *scanner) object(field func(key []byte) bool) bool {
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return true
	}
	for {
		key, ok := p.raw()
		if !ok || !p.byte(':') || !field(key) {
			return false
		}
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

func (p *scanner) blocks(out *[]Block) bool {
	if !p.byte('[') {
		return false
	}
	bs := []Block{}
	if p.byte(']') {
		*out = bs
		return true
	}
	for {
		var b Block
		if !p.object(func(key []byte) bool { return p.blockField(&b, key) }) {
			return false
		}
		bs = append(bs, b)
		if p.byte(']') {
			*out = bs
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

func (p *scanner) blockField(b *Block, key []byte) bool {
	switch string(key) {
	case "type":
		return p.str(&b.Type)
	case "text":
		return p.str(&b.Text)
	case "signature":
		return p.str(&b.Signature)
	case "data":
		return p.str(&b.Data)
	case "id":
		return p.str(&b.ID)
	case "name":
		return p.str(&b.Name)
	case "tool_use_id":
		return p.str(&b.ToolUseID)
	case "content":
		var s string
		if !p.str(&s) {
			return false
		}
		b.Content = &s
		return true
	case "is_error":
		return p.bool(&b.IsError)
	case "input":
		return p.rawValue(&b.Input)
	}
	return false
}

func (p *scanner) int(out *int) bool {
	p.ws()
	j := p.i
	for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
		j++
	}
	if j == p.i || j-p.i > 9 || (p.b[p.i] == '0' && j-p.i > 1) {
		return false
	}
	n, err := strconv.Atoi(string(p.b[p.i:j]))
	if err != nil {
		return false
	}
	*out, p.i = n, j
	return true
}

func (p *scanner) bool(out *bool) bool {
	p.ws()
	switch {
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		*out, p.i = true, p.i+4
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		*out, p.i = false, p.i+5
	default:
		return false
	}
	return true
}

// rawValue takes an object or array as raw JSON, checked with
// json.Valid and kept byte for byte, as encoding/json keeps a RawMessage.
func (p *scanner) rawValue(out *json.RawMessage) bool {
	p.ws()
	if p.i >= len(p.b) || (p.b[p.i] != '{' && p.b[p.i] != '[') {
		return false
	}
	start := p.i
	depth := 0
	for p.i < len(p.b) {
		switch c := p.b[p.i]; c {
		case '"':
			if _, ok := p.raw(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return false
			}
		}
		p.i++
		if depth == 0 {
			v := p.b[start:p.i]
			if !json.Valid(v) {
				return false
			}
			*out = append(json.RawMessage(nil), v...)
			return true
		}
	}
	return false
}

// raw reads a string without escapes, as its bytes.
func (p *scanner) raw() ([]byte, bool) {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			return p.b[start:j], true
		case c == '\\':
			// Skip the escaped byte; str decodes escapes, raw only
			// finds the end (keys and input strings).
			j++
		case c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string value, decoding its escapes.
func (p *scanner) str(out *string) bool {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	start := p.i + 1
	j := start
	for j < len(p.b) && p.b[j] != '"' && p.b[j] != '\\' && p.b[j] >= 0x20 {
		j++
	}
	if j < len(p.b) && p.b[j] == '"' {
		s := p.b[start:j]
		if !utf8.Valid(s) {
			return false
		}
		*out, p.i = string(s), j+1
		return true
	}
	// A Builder's buffer is not zeroed, and String does not copy it.
	var buf strings.Builder
	buf.Grow(j - start + 64)
	buf.Write(p.b[start:j])
	for j < len(p.b) {
		c := p.b[j]
		switch {
		case c == '"':
			s := buf.String()
			if !utf8.ValidString(s) {
				return false
			}
			*out, p.i = s, j+1
			return true
		case c < 0x20:
			return false
		case c != '\\':
			k := j
			for k < len(p.b) && p.b[k] != '"' && p.b[k] != '\\' && p.b[k] >= 0x20 {
				k++
			}
			buf.Write(p.b[j:k])
			j = k
			continue
		}
		if j+1 >= len(p.b) {
			return false
		}
		switch e := p.b[j+1]; e {
		case '"', '\\', '/':
			buf.WriteByte(e)
		case 'n':
			buf.WriteByte('\n')
		case 't':
			buf.WriteByte('\t')
		case 'r':
			buf.WriteByte('\r')
		case 'b':
			buf.WriteByte('\b')
		case 'f':
			buf.WriteByte('\f')
		case 'u':
			r, n := unicodeEscape(p.b[j:])
			if n == 0 {
				return false
			}
			buf.WriteRune(r)
			j += n
			continue
		default:
			return false
		}
		j += 2
	}
	return false
}

// unicodeEscape decodes \uXXXX, or a surrogate pair \uXXXX\uXXXX, at the
// start of b; n is 0 for what encoding/json would treat specially (a lone
// surrogate).
func unicodeEscape(b []byte) (rune, int) {
	r := hex4(b)
	if r < 0 {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
		return 0, 0
	}
	r2 := hex4(b[6:])
	if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
		return d, 12
	}
	return 0, 0
}

func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
