package toolkit

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
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
	match := m.re.Match // whether a line holds a match
	if m.dfa != nil {
		r := m.dfa.get()
		defer m.dfa.put(r)
		match = r.match
	}
	if m.lits != nil {
		m.eachWithLiteral(buf, match, fn)
		return
	}
	if !m.whole {
		for start := 0; start < len(buf); {
			end := lineEnd(buf, start)
			if match(buf[start:end]) && !fn(start, end) {
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
		if pos+loc[1] <= end || match(buf[start:end]) {
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
// the literals m.lits: only the lines holding all of them are matched.
func (m *lineMatcher) eachWithLiteral(buf []byte, match func([]byte) bool, fn func(start, end int) bool) {
	lower := buf
	if m.fold {
		scratch, _ := m.scratch.Get().(*[]byte)
		if scratch == nil {
			scratch = new([]byte)
		}
		*scratch = lowerASCII(*scratch, buf)
		lower = *scratch
		defer m.scratch.Put(scratch)
	}
	hay := func(l reqLit) []byte {
		if l.fold {
			return lower
		}
		return buf
	}
	first, rest := m.lits[0], m.lits[1:]
	for pos := 0; pos < len(buf); {
		i := bytes.Index(hay(first)[pos:], first.b)
		if i < 0 {
			return
		}
		start := bytes.LastIndexByte(buf[:pos+i], '\n') + 1
		end := lineEnd(buf, pos+i)
		if !slices.ContainsFunc(rest, func(l reqLit) bool { return !bytes.Contains(hay(l)[start:end], l.b) }) &&
			match(buf[start:end]) && !fn(start, end) {
			return
		}
		pos = end + 1
	}
}

// lineMatcher finds the lines of a buffer that match a pattern.
type lineMatcher struct {
	re *regexp.Regexp
	// whole: the pattern has a literal prefix, so searching the whole
	// buffer at once skips quickly to candidates.
	whole bool
	// lits, when set, are literals every match contains (see
	// [requiredLiterals]): only lines holding all of them are matched,
	// found by searching for lits[0]. Without either, lines are matched
	// one by one, which keeps Go's regexp on its fast paths for short
	// inputs.
	lits    []reqLit
	fold    bool      // some literal is case-folded: the text is lower-cased too
	dfa     *lineDFA  // matches single lines faster than re; nil if it cannot be built
	scratch sync.Pool // *[]byte for the lower-cased copy of a buffer
}

func newLineMatcher(pattern string, fixed, fold bool) (*lineMatcher, error) {
	if strings.ContainsAny(pattern, "\n") {
		return nil, errors.New("pattern contains a newline; grep matches within single lines")
	}
	expr := pattern
	if fixed {
		expr = regexp.QuoteMeta(pattern)
	}
	flags := "(?m)"
	if fold {
		flags = "(?mi)"
	}
	if _, err := regexp.Compile(expr); err != nil {
		return nil, fmt.Errorf("invalid pattern: %v", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	re, err := regexp.Compile(flags + expr)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern: %v", err)
	}
	m := &lineMatcher{re: re}
	m.dfa, _ = newLineDFA(flags+expr, re) // on error, lines are matched with re
	if prefix, _ := re.LiteralPrefix(); prefix != "" {
		m.whole = true
		return m, nil
	}
	m.lits = requiredLiterals(flags + expr)
	m.fold = slices.ContainsFunc(m.lits, func(l reqLit) bool { return l.fold })
	return m, nil
}

// search returns the matching lines of buf with ctx lines of context,
// stopping after limit matches, and the number of matches found.
func (m *lineMatcher) search(buf []byte, ctx, limit int) ([]grepHit, int) {
	var starts []int // line start offsets, built on demand for context
	var hits []grepHit
	matches := 0
	num, counted := 1, 0        // line number at offset counted
	lastEmitted, after := 0, 0  // last line emitted; context runs through line after
	context := func(upTo int) { // emit the context lines before line upTo
		for n := lastEmitted + 1; n < upTo && n <= len(starts); n++ {
			if n <= after || n >= upTo-ctx {
				s := starts[n-1]
				hits = append(hits, grepHit{num: n, text: lineText(buf[s:lineEnd(buf, s)])})
				lastEmitted = n
			}
		}
	}
	m.each(buf, func(ls, le int) bool {
		num += countNL(buf[counted:ls])
		counted = ls
		if ctx > 0 {
			if starts == nil {
				starts = lineStarts(buf)
			}
			context(num)
			after = num + ctx
		}
		hits = append(hits, grepHit{num: num, text: lineText(buf[ls:le]), match: true})
		lastEmitted = num
		matches++
		return matches < limit
	})
	if ctx > 0 {
		context(after + 1)
	}
	return hits, matches
}
