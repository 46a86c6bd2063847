package config

import (
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyLines maps every key path defined in a TOML document to the line it is
// written on, so that errors found after decoding (koanf keeps no positions)
// can still point at the line. Paths are joined with pathSep.
type keyLines map[string]int

// pathSep joins key parts in keyLines and origin maps. TOML keys can hold
// dots (model names such as "gpt-4.1"), so a dot cannot be the separator.
const pathSep = "\x1f"

// indexKeyLines walks the document and records the line of each key, table
// header and inline-table member. It returns what it found before any syntax
// error; the caller reports syntax errors from the decoder, which has better
// messages.
func indexKeyLines(data []byte) keyLines {
	lines := keyLines{}
	var p unstable.Parser
	p.Reset(data)
	var prefix []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			it := e.Key()
			prefix = lines.record(&p, nil, it)
		case unstable.KeyValue:
			lines.keyValue(&p, prefix, e)
		}
	}
	return lines
}

// keyValue records a key = value expression and, for inline tables, its
// members.
func (l keyLines) keyValue(p *unstable.Parser, prefix []string, kv *unstable.Node) {
	path := l.record(p, prefix, kv.Key())
	v := kv.Value()
	if v == nil || v.Kind != unstable.InlineTable {
		return
	}
	it := v.Children()
	for it.Next() {
		if n := it.Node(); n.Kind == unstable.KeyValue {
			l.keyValue(p, path, n)
		}
	}
}

// record stores the line of each prefix of a dotted key (a.b.c records a,
// a.b and a.b.c unless already known) and returns the full path.
func (l keyLines) record(p *unstable.Parser, prefix []string, it unstable.Iterator) []string {
	path := append([]string(nil), prefix...)
	for it.Next() {
		n := it.Node()
		path = append(path, string(n.Data))
		k := strings.Join(path, pathSep)
		if _, ok := l[k]; !ok {
			l[k] = p.Shape(n.Raw).Start.Line
		}
	}
	return path
}

// line returns the line of path, or of its nearest recorded ancestor, or 0.
func (l keyLines) line(path []string) int {
	for i := len(path); i > 0; i-- {
		if n, ok := l[strings.Join(path[:i], pathSep)]; ok {
			return n
		}
	}
	return 0
}
