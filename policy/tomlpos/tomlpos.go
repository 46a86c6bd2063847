package tomlpos

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// sep joins the parts of a key path in the index. TOML keys can hold dots
// (model names such as "gpt-4.1"), so a dot cannot be the separator.
const sep = "\x1f"

// Lines maps every key path defined in a TOML document to the line it is
// written on. A path is the key's parts; an element of an array of tables
// is the part "[N]" after the array's name, so the paths holds of
// "rule[2].paths" are "rule", "[2]", "paths".
type Lines struct {
	m map[string]int
}

// Index walks data and records the line of each key, each prefix of a
// dotted key, each table and array-table header and each inline-table
// member. The first definition of a path wins; an array of tables' name is
// recorded at its first header. Index returns what it found before any
// syntax error: the caller reports syntax errors from the decoder, which
// has better messages.
func Index(data []byte) Lines {
	ix := indexer{data: data, lines: Lines{m: map[string]int{}}, arrays: map[string]int{}, line: 1}
	ix.p.Reset(data)
	var prefix []string
	for ix.p.NextExpression() {
		e := ix.p.Expression()
		switch e.Kind {
		case unstable.Table:
			prefix = ix.record(nil, e.Key())
		case unstable.ArrayTable:
			first := e.Key()
			first.Next()
			line := ix.lineOf(first.Node())
			name := ix.record(nil, e.Key())
			k := strings.Join(name, sep)
			i := ix.arrays[k]
			ix.arrays[k]++
			prefix = append(name, "["+strconv.Itoa(i)+"]")
			ix.lines.set(prefix, line)
		case unstable.KeyValue:
			ix.keyValue(prefix, e)
		}
	}
	return ix.lines
}

// Line returns the line of path, or 0 if the document does not define it.
func (l Lines) Line(path ...string) int {
	return l.m[strings.Join(path, sep)]
}

// Nearest returns the line of path, or of its nearest defined ancestor, or
// 0.
func (l Lines) Nearest(path ...string) int {
	for i := len(path); i > 0; i-- {
		if n, ok := l.m[strings.Join(path[:i], sep)]; ok {
			return n
		}
	}
	return 0
}

// Dotted returns the line of a key written the way the policy loader names
// keys, "defaults.decision" or "rule[2].paths", or 0. Its parts must not
// hold dots or brackets.
func (l Lines) Dotted(key string) int {
	var path []string
	for _, part := range strings.Split(key, ".") {
		for {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				break
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				break
			}
			if i > 0 {
				path = append(path, part[:i])
			}
			path = append(path, part[i:i+j+1])
			part = part[i+j+1:]
		}
		if part != "" {
			path = append(path, part)
		}
	}
	return l.Line(path...)
}

// set records line for path unless it is already known.
func (l Lines) set(path []string, line int) {
	k := strings.Join(path, sep)
	if _, ok := l.m[k]; !ok {
		l.m[k] = line
	}
}

// indexer holds the state of one Index call. It counts lines as it goes,
// so that a long document is not rescanned from its start for each key.
type indexer struct {
	p      unstable.Parser
	data   []byte
	lines  Lines
	arrays map[string]int // array-table headers seen, by name

	off, line int // the line at byte offset off
}

// keyValue records a key = value expression and, for inline tables, its
// members.
func (ix *indexer) keyValue(prefix []string, kv *unstable.Node) {
	path := ix.record(prefix, kv.Key())
	v := kv.Value()
	if v == nil || v.Kind != unstable.InlineTable {
		return
	}
	it := v.Children()
	for it.Next() {
		if n := it.Node(); n.Kind == unstable.KeyValue {
			ix.keyValue(path, n)
		}
	}
}

// record stores the line of each prefix of a dotted key (a.b.c records a,
// a.b and a.b.c unless already known) and returns the full path.
func (ix *indexer) record(prefix []string, it unstable.Iterator) []string {
	path := append([]string(nil), prefix...)
	for it.Next() {
		n := it.Node()
		path = append(path, string(n.Data))
		ix.lines.set(path, ix.lineOf(n))
	}
	return path
}

// lineOf returns the line of a key node, found from its raw range or from
// where its bytes lie in the document, or 0.
func (ix *indexer) lineOf(n *unstable.Node) int {
	off := -1
	if n.Raw.Length > 0 && int(n.Raw.Offset) < len(ix.data) {
		off = int(n.Raw.Offset)
	} else if len(n.Data) > 0 {
		off = subsliceOffset(ix.data, n.Data)
	}
	if off < 0 {
		return 0
	}
	if off < ix.off {
		ix.off, ix.line = 0, 1
	}
	ix.line += bytes.Count(ix.data[ix.off:off], []byte("\n"))
	ix.off = off
	return ix.line
}

// subsliceOffset returns where sub starts inside data when it is a
// subslice of it, else -1.
func subsliceOffset(data, sub []byte) int {
	if cap(sub) == 0 || cap(data) == 0 {
		return -1
	}
	d := cap(data) - cap(sub)
	if d < 0 || d > len(data) {
		return -1
	}
	if len(data[d:]) >= len(sub) && &data[d:][0] == &sub[0] {
		return d
	}
	return -1
}
