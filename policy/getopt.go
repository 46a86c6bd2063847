package policy

import (
	"maps"
	"slices"
	"strings"
)

// getopt describes how a program parses its options, enough to tell its
// options from its operands and to find their values: GNU getopt_long
// (options may follow operands, long options may be abbreviated to any
// unambiguous prefix, one-letter options cluster) unless posix is set.
type getopt struct {
	val   string          // one-letter options that take a value (attached or the next word)
	opt   string          // one-letter options with an optional, attached value
	long  map[string]bool // long options the models care about, and whether each takes a value
	posix bool            // the first operand ends the options (xargs, parallel, awk)
}

// parsedOpt is one option found by [getopt.parse].
type parsedOpt struct {
	name   string // "-o", or the long option as the table names it
	value  word   // its value, when it has one
	has    bool   // it has a value
	index  int    // argv index of the option word
	vindex int    // argv index of the value: index, or the next word's
}

// parsedArgs is an argv split into options and operands.
type parsedArgs struct {
	opts     []parsedOpt
	operands []int // argv indexes of the operands
	globs    []int // argv indexes of globbed words that may expand to an option
}

// has reports whether one of the named options is present.
func (p parsedArgs) has(names ...string) bool {
	return slices.ContainsFunc(p.opts, func(o parsedOpt) bool { return slices.Contains(names, o.name) })
}

// parse splits argv[1:] into options and operands. A word the analysis
// cannot read exactly is an operand; when its glob may start with "-" it
// is also recorded in globs (a file named "-oX" makes `sort *` write X).
func (g getopt) parse(argv []word) parsedArgs {
	var p parsedArgs
	dashes := false
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		if !w.exact {
			p.operands = append(p.operands, i)
			if w.glob != "" && strings.ContainsAny(w.glob[:1], "-*?[") && !dashes {
				p.globs = append(p.globs, i)
			}
			continue
		}
		v := w.value
		switch {
		case dashes:
			p.operands = append(p.operands, i)
			continue
		case v == "--":
			dashes = true
			continue
		case v == "-" || !strings.HasPrefix(v, "-"):
			p.operands = append(p.operands, i)
			dashes = dashes || g.posix
			continue
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			name, takes := g.longName(name)
			o := parsedOpt{name: name, index: i, vindex: i}
			switch {
			case hasEq:
				o.value, o.has = word{value: val, exact: true, src: val}, true
			case takes && i+1 < len(argv):
				i++
				o.value, o.has, o.vindex = argv[i], true, i
			}
			p.opts = append(p.opts, o)
			continue
		}
		for k := 1; k < len(v); k++ {
			c := v[k]
			o := parsedOpt{name: "-" + string(c), index: i, vindex: i}
			rest := v[k+1:]
			switch {
			case strings.IndexByte(g.val, c) >= 0:
				if rest != "" {
					o.value, o.has = word{value: rest, exact: true, src: rest}, true
				} else if i+1 < len(argv) {
					i++
					o.value, o.has, o.vindex = argv[i], true, i
				}
				k = len(v)
			case strings.IndexByte(g.opt, c) >= 0:
				o.value, o.has = word{value: rest, exact: true, src: rest}, rest != ""
				k = len(v)
			}
			p.opts = append(p.opts, o)
		}
	}
	return p
}

// longName resolves a long option written in full or as a prefix of one
// the table knows (getopt_long accepts any unambiguous prefix; an
// ambiguous one is taken for the first in name order, which is only
// stricter). It returns the name and whether the option takes a value.
func (g getopt) longName(name string) (string, bool) {
	if takes, ok := g.long[name]; ok {
		return name, takes
	}
	if len(name) > 3 {
		for _, full := range slices.Sorted(maps.Keys(g.long)) {
			if strings.HasPrefix(full, name) {
				return full, g.long[full]
			}
		}
	}
	return name, false
}

// Finding constructors for the program models.

// writeAt is a write fact for the file w names, found at argv index i.
func writeAt(i int, name string, w word) optFinding {
	return optFinding{index: i, name: name, spec: writeFile, value: w}
}

// readAt is a read fact for the file w names.
func readAt(i int, name string, w word) optFinding {
	return optFinding{index: i, name: name, spec: readFile, value: w}
}

// treeAt is a write (or, with read, a read) of anything beneath the
// directory w names: an extraction, a recursive copy, a delete.
func treeAt(i int, name string, w word, read bool) optFinding {
	e := optWriteTree
	if read {
		e = optReadTree
	}
	return optFinding{index: i, name: name, spec: optSpec{effect: e, value: true}, value: w}
}

// execAt is an option or operand that makes the command run another
// program, which an allow rule's final `*` does not cover.
func execAt(i int, name, why string) optFinding {
	return optFinding{index: i, name: name, spec: optSpec{effect: optExec, why: why}}
}

// dotWord is the working directory, for trees written there.
var dotWord = word{value: ".", exact: true, src: "."}

// globExecs turns globbed words that may be options into findings: each
// counts as every listed option (its value unreadable), so an allow
// rule's final `*` does not cover it.
func globExecs(p parsedArgs, argv []word) []optFinding {
	var out []optFinding
	for _, i := range p.globs {
		out = append(out, execAt(i, argv[i].src, "may expand to an option that runs a program or writes a file"))
	}
	return out
}
