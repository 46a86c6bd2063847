package toolkit

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// headTail is an [io.Writer] that keeps the first and the last bytes of
// everything written to it, up to a fixed total, and counts what it drops
// from the middle. Writes never fail, so a command that prints gigabytes is
// drained at pipe speed while memory stays bounded.
//
// A headTail is not safe for concurrent use.
type headTail struct {
	headMax int
	tailMax int
	head    []byte
	tail    []byte // ring buffer of the last tailMax bytes, allocated once head is full
	tailPos int    // next write position in tail
	tailLen int    // bytes held in tail
	total   int64  // bytes written
	lines   int64  // newlines written
}

// newHeadTail returns a headTail that keeps max bytes: the first half of
// max and the last half.
func newHeadTail(max int) *headTail {
	h := max / 2
	return &headTail{headMax: h, tailMax: max - h}
}

// Write records p. It always returns len(p), nil.
func (w *headTail) Write(p []byte) (int, error) {
	n := len(p)
	w.total += int64(n)
	w.lines += int64(bytes.Count(p, []byte{'\n'}))
	if room := w.headMax - len(w.head); room > 0 {
		k := min(room, len(p))
		w.head = append(w.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || w.tailMax == 0 {
		return n, nil
	}
	if w.tail == nil {
		w.tail = make([]byte, w.tailMax)
	}
	if len(p) >= w.tailMax {
		copy(w.tail, p[len(p)-w.tailMax:])
		w.tailPos, w.tailLen = 0, w.tailMax
		return n, nil
	}
	k := copy(w.tail[w.tailPos:], p)
	copy(w.tail, p[k:])
	w.tailPos = (w.tailPos + len(p)) % w.tailMax
	w.tailLen = min(w.tailLen+len(p), w.tailMax)
	return n, nil
}

// Total reports how many bytes were written.
func (w *headTail) Total() int64 { return w.total }

// Truncated reports whether bytes were dropped from the middle.
func (w *headTail) Truncated() bool {
	return w.total > int64(len(w.head)+w.tailLen)
}

// tailBytes returns the ring's content in write order.
func (w *headTail) tailBytes() []byte {
	if w.tailLen < w.tailMax {
		return w.tail[:w.tailLen]
	}
	out := make([]byte, 0, w.tailMax)
	out = append(out, w.tail[w.tailPos:]...)
	return append(out, w.tail[:w.tailPos]...)
}

// String returns what was kept as valid UTF-8 (invalid sequences become
// U+FFFD). When the middle was dropped, a notice between head and tail says
// how many bytes and lines are missing; the cut is moved off any UTF-8
// sequence it would split, so no rune is broken in two.
func (w *headTail) String() string {
	tail := w.tailBytes()
	if !w.Truncated() {
		all := make([]byte, 0, len(w.head)+len(tail))
		all = append(append(all, w.head...), tail...)
		return strings.ToValidUTF8(string(all), "\uFFFD")
	}
	head := trimPartialRuneEnd(w.head)
	tail = trimPartialRuneStart(tail)
	cut := w.total - int64(len(head)) - int64(len(tail))
	cutLines := w.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b strings.Builder
	b.Grow(len(head) + len(tail) + 160)
	b.WriteString(strings.ToValidUTF8(string(head), "\uFFFD"))
	lines := "lines"
	if cutLines == 1 {
		lines = "line"
	}
	fmt.Fprintf(&b, "\n\n[output cut: %d bytes (%d %s) omitted from the middle; showing the first %d and the last %d of %d bytes]\n\n",
		cut, cutLines, lines, len(head), len(tail), w.total)
	b.WriteString(strings.ToValidUTF8(string(tail), "\uFFFD"))
	return b.String()
}

// trimPartialRuneEnd drops an incomplete UTF-8 sequence at the end of p.
func trimPartialRuneEnd(p []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		c := p[len(p)-i]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			return p
		}
	}
	return p
}

// trimPartialRuneStart drops the continuation bytes of a sequence whose
// start was cut off the front of p.
func trimPartialRuneStart(p []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(p); i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}
