package toolkit

import (
	"bytes"
	"strings"
)

// each calls fn with the start and end offsets (end excludes the newline)
// of every line of buf that matches, in order, until fn returns false.
//
// With a literal prefix the whole buffer is searched at once: the leftmost
// match in the buffer starts in the first matching line, because the
// pattern is compiled with (?m), so ^, $ and \b see a line's edges in the
// buffer exactly as in the line alone. A match that runs into the next line
// is checked against its first line alone.
func (m *lineMatcher) each(buf []byte, fn func(start, end int) bool) {
	if m.lit != nil {
		m.eachWithLiteral(buf, fn)
		return
	}
	if !m.whole {
		for start := 0; start < len(buf); {
			end := lineEnd(buf, start)
			if m.re.Match(buf[start:end]) && !fn(start, end) {
				return
			}
			start = end + 1
		}
		return
	}
	for pos := 0; pos < len(buf); {
		loc := m.re.FindIndex(buf[pos:])
		if loc == nil {
			return
		}
		ms := pos + loc[0]
		if ms == len(buf) && (ms == 0 || buf[ms-1] == '\n') {
			return // an empty match after the last newline is not a line
		}
		start := bytes.LastIndexByte(buf[:ms], '\n') + 1
		end := lineEnd(buf, ms)
		if pos+loc[1] <= end || m.re.Match(buf[start:end]) {
			if !fn(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// lineEnd returns the offset of the newline ending the line at start, or
// len(buf).
func lineEnd(buf []byte, start int) int {
	if i := bytes.IndexByte(buf[start:], '\n'); i >= 0 {
		return start + i
	}
	return len(buf)
}

// lineStarts returns the start offset of every line of buf.
func lineStarts(buf []byte) []int {
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(buf[i:], '\n')
		if j < 0 || i+j+1 >= len(buf) {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

func countNL(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

func containsNUL(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }

// lineText prepares a line for output: no carriage return, valid UTF-8,
// cut at grepMaxLineBytes.
func lineText(line []byte) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	s := strings.ToValidUTF8(string(line[:min(len(line), grepMaxLineBytes+4)]), "\uFFFD")
	if len(line) > grepMaxLineBytes {
		return cutUTF8(s, grepMaxLineBytes) + " … [line cut]"
	}
	return s
}

// eachWithLiteral is each for a pattern every match of which contains
// m.lit: only the lines holding it are matched.
func (m *lineMatcher) eachWithLiteral(buf []byte, fn func(start, end int) bool) {
	hay := buf
	if m.fold {
		scratch, _ := m.scratch.Get().(*[]byte)
		if scratch == nil {
			scratch = new([]byte)
		}
		*scratch = lowerASCII(*scratch, buf)
		hay = *scratch
		defer m.scratch.Put(scratch)
	}
	for pos := 0; pos < len(buf); {
		i := bytes.Index(hay[pos:], m.lit)
		if i < 0 {
			return
		}
		start := bytes.LastIndexByte(buf[:pos+i], '\n') + 1
		end := lineEnd(buf, pos+i)
		if m.re.Match(buf[start:end]) && !fn(start, end) {
			return
		}
		pos = end + 1
	}
}
