package ghactions

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// neutralMark is put in front of a line that the runner would read as a
// workflow command: the line is then shown as written and not acted on.
const neutralMark = `\`

// Writer passes what is written to it on to another writer, with every
// line that the runner would take for a workflow command neutralised:
// one that, after leading white space, begins with "::" or "##[". Lines
// end at "\n" or "\r", as the runner splits them. The runner's older
// parser finds "##[" anywhere in a line, so every "##[" is broken too
// ("##\["), also one split across writes.
//
// It holds back only the start of a line that may yet become a command
// (white space, ":" or "#" and so on) until it can tell; [Writer.Flush]
// writes what is held. It is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	start bool   // at a line's start: only what is in held seen of it
	held  []byte // the undecided start of the current line
	ws    int    // how many bytes of held are known white space
	sent  int    // how many bytes of held [Writer.Flush] wrote already
	hash  int    // how many "#" the output of the current line ends with
	buf   []byte // scratch for the output of one Write
}

// NewWriter returns a Writer on w, at the start of a line.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, start: true} }

// Write neutralises and passes on p. It reports len(p) written unless the
// underlying writer fails.
func (n *Writer) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.buf[:0]
	for i := 0; i < len(p); {
		if !n.start {
			j := bytes.IndexAny(p[i:], "\n\r")
			if j < 0 {
				out = n.mid(out, p[i:])
				break
			}
			out = n.mid(out, p[i:i+j+1])
			i += j + 1
			n.start, n.hash = true, 0
			continue
		}
		n.held = append(n.held, p[i])
		i++
		out = n.decide(out)
	}
	n.buf = out[:0]
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := n.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// decide looks at the held start of a line and, once it can tell whether
// the line is a command, appends it to out, neutralised if need be.
func (n *Writer) decide(out []byte) []byte {
	for n.ws < len(n.held) {
		rest := n.held[n.ws:]
		if !utf8.FullRune(rest) {
			return out // the rest of a white-space rune is to come
		}
		r, size := utf8.DecodeRune(rest)
		switch {
		case r == '\n' || r == '\r':
			// A blank line: still at the start of the next one.
			out = append(out, n.held[n.sent:]...)
			n.held, n.ws, n.sent = n.held[:0], 0, 0
			return out
		case unicode.IsSpace(r):
			n.ws += size
			continue
		}
		switch command := commandStart(rest); {
		case command < 0:
			return out // too short to tell
		case command > 0 && n.sent <= n.ws:
			out = append(out, n.held[n.sent:n.ws]...)
			out = append(out, neutralMark...)
			out = n.mid(out, rest)
		case command > 0:
			// Part of the command's prefix went out with a flush: the
			// mark breaks the prefix where the rest of it begins ([mid]
			// puts it in a "##[").
			if !bytes.HasPrefix(rest, []byte("##[")) {
				out = append(out, neutralMark...)
			}
			out = n.mid(out, n.held[n.sent:])
		default:
			out = n.mid(out, n.held[n.sent:])
		}
		n.held, n.ws, n.sent, n.start = n.held[:0], 0, 0, false
		// The byte that decided may end the line.
		if last := out[len(out)-1]; last == '\n' || last == '\r' {
			n.start = true
		}
		return out
	}
	return out
}

// mid appends seg, a piece of the current line past its start, to out
// with every "##[" broken by neutralMark before its "[", counting the "#"
// that the line's output so far ends with.
func (n *Writer) mid(out, seg []byte) []byte {
	if bytes.IndexByte(seg, '[') < 0 {
		k := len(seg) - len(bytes.TrimRight(seg, "#"))
		if k == len(seg) {
			n.hash += k
		} else {
			n.hash = k
		}
		return append(out, seg...)
	}
	for _, c := range seg {
		if c == '[' && n.hash >= 2 {
			out = append(out, neutralMark...)
		}
		if c == '#' {
			n.hash++
		} else {
			n.hash = 0
		}
		out = append(out, c)
	}
	return out
}

// commandStart says whether b, a line's start after its white space,
// begins a workflow command (1), cannot (0), or is too short to tell (-1).
func commandStart(b []byte) int {
	for _, prefix := range []string{"::", "##["} {
		switch {
		case bytes.HasPrefix(b, []byte(prefix)):
			return 1
		case len(b) < len(prefix) && strings.HasPrefix(prefix, string(b)):
			return -1
		}
	}
	return 0
}

// Flush writes the held start of the current line as it is, and goes on
// deciding it: should what is written next make the line a command (a
// flushed ":" and then ":add-mask"), the mark breaks its prefix there.
func (n *Writer) Flush() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.flushLocked(false)
}

// flushLocked writes what is held and, with newline, ends the current
// line if it has begun.
func (n *Writer) flushLocked(newline bool) error {
	out := n.mid(n.buf[:0], n.held[n.sent:])
	begun := len(n.held) > 0 || !n.start
	n.sent = len(n.held)
	if newline && begun {
		out = append(out, '\n')
		n.held, n.ws, n.sent, n.start, n.hash = n.held[:0], 0, 0, true, 0
	}
	n.buf = out[:0]
	if len(out) == 0 {
		return nil
	}
	_, err := n.w.Write(out)
	return err
}

// Command writes one workflow command of rubichan's own, on a line of its
// own: "::name prop=value,…::message". The properties and the message
// are escaped (see [EscapeData], [EscapeProperty]), so none of them can
// end the line or start another command. props holds name, value pairs.
func (n *Writer) Command(name, message string, props ...string) error {
	var b strings.Builder
	b.WriteString("::" + name)
	for i := 0; i+1 < len(props); i += 2 {
		if props[i+1] == "" {
			continue
		}
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(props[i] + "=" + EscapeProperty(props[i+1]))
	}
	b.WriteString("::" + EscapeData(message) + "\n")
	return n.raw(b.String())
}

// raw writes line, a whole line of rubichan's own, after ending the
// current line.
func (n *Writer) raw(line string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.flushLocked(true); err != nil {
		return err
	}
	_, err := io.WriteString(n.w, line)
	return err
}

// StopCommands makes the runner ignore every workflow command until the
// returned resume is called: "::stop-commands::TOKEN" with a fresh random
// token, then "::TOKEN::". What is written in between is still
// neutralised; the token is random, so no line of the output can know it
// and resume command processing early.
func (n *Writer) StopCommands() (resume func() error, err error) {
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	if err := n.raw("::stop-commands::" + token + "\n"); err != nil {
		return nil, err
	}
	return func() error { return n.raw("::" + token + "::\n") }, nil
}

// newToken is 16 random bytes in hex.
func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// EscapeData escapes a workflow command's message as the runner unescapes
// it: "%" "\r" "\n" become "%25" "%0D" "%0A".
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes a workflow command's property value: as
// [EscapeData], and ":" "," become "%3A" "%2C".
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
