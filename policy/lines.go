package policy

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyLines maps each key of a TOML document to the line it is on, so that
// validation errors can name the line: "defaults.decision", "rule[2]" (the
// [[rule]] header), "rule[2].paths". The decoder has already accepted the
// document; a parse error here just leaves the map short.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	prefix := ""
	arrays := map[string]int{}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			name := joinKey(e.Key())
			prefix = name
			if e.Kind == unstable.ArrayTable {
				prefix = fmt.Sprintf("%s[%d]", name, arrays[name])
				arrays[name]++
			}
			lines[prefix] = lineOf(data, e.Key())
		case unstable.KeyValue:
			k := joinKey(e.Key())
			if prefix != "" {
				k = prefix + "." + k
			}
			lines[k] = lineOf(data, e.Key())
		}
	}
	return lines
}

func joinKey(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

// lineOf returns the line of the first key node, found from its raw range
// or from where its bytes lie in the document.
func lineOf(data []byte, it unstable.Iterator) int {
	if !it.Next() {
		return 0
	}
	n := it.Node()
	off := -1
	if n.Raw.Length > 0 && int(n.Raw.Offset) < len(data) {
		off = int(n.Raw.Offset)
	} else if len(n.Data) > 0 {
		off = subsliceOffset(data, n.Data)
	}
	if off < 0 {
		return 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
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
