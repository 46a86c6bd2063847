package sink

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/rubichan/rubichan/run/agent"
)

// JSONShown passes JSON text on to another writer with every
// character that would act on a terminal written as a JSON escape:
// encoding/json already escapes C0 controls, but leaves DEL, C1 controls
// (U+009B is a CSI) and bidirectional overrides raw, and JSON meant for a
// program is often read on a terminal. Inside a string the escape decodes
// to the same text; such characters cannot stand outside one in valid
// JSON. Raw C0 controls (a session file shown as it is may hold them)
// and invalid bytes are escaped too ("\u001b", "\ufffd"); newline and tab
// are kept. A rune cut across two writes is written whole with the
// second. It is not safe for concurrent use.
type JSONShown struct {
	w    io.Writer
	rest []byte // the start of a rune the last write ended in
	buf  []byte // scratch for one write's output
}

// NewJSONShown returns a JSONShown on w.
func NewJSONShown(w io.Writer) *JSONShown { return &JSONShown{w: w} }

// Write passes p on, escaped. It reports len(p) written unless the
// underlying writer fails.
func (j *JSONShown) Write(p []byte) (int, error) {
	data := p
	if len(j.rest) > 0 {
		data = append(j.rest, p...)
		j.rest = nil
	}
	// Keep an unfinished rune at the end for the next write.
	for k := 1; k <= utf8.UTFMax-1 && k <= len(data); k++ {
		if utf8.RuneStart(data[len(data)-k]) {
			if !utf8.FullRune(data[len(data)-k:]) {
				j.rest = append([]byte(nil), data[len(data)-k:]...)
				data = data[:len(data)-k]
			}
			break
		}
	}
	out := data
	if !jsonClean(data) {
		out = j.buf[:0]
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			switch {
			case r == utf8.RuneError && n <= 1:
				out = append(out, `\ufffd`...)
			case r == '\n' || r == '\t':
				out = append(out, data[i])
			case r < 0x20 || agent.ActsOnTerminal(r):
				out = fmt.Appendf(out, `\u%04x`, r)
			default:
				out = append(out, data[i:i+n]...)
			}
			i += n
		}
		j.buf = out[:0]
	}
	if len(out) > 0 {
		if _, err := j.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// jsonClean reports whether b holds nothing [JSONShown] escapes.
func jsonClean(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || agent.ActsOnTerminal(r) {
			return false
		}
		i += n
	}
	return true
}
