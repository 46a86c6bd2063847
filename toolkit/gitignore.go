package toolkit

import (
	"bytes"
	"regexp"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	re      *regexp.Regexp // matches the path relative to the file's directory
	negate  bool           // "!pattern": re-include
	dirOnly bool           // "pattern/": directories only
}

// ignoreFile is the parsed content of one .gitignore file.
type ignoreFile struct {
	base string // slash path of its directory relative to the walk's root; "" for the root
	// above, for a file in a directory above the walk's root (in the
	// repository the root lies in), is the slash path from that directory
	// down to the root; base is then "".
	above string
	rules []ignoreRule
}

// parseGitignore parses a .gitignore file found in the directory base
// (slash-separated, relative to the root being walked, "" for the root).
// It follows gitignore(5): blank lines and "#" comments are skipped,
// trailing unescaped spaces dropped, "!" negates, a trailing "/" matches
// directories only, a "/" at the start or in the middle anchors the pattern
// to base, otherwise it matches at any depth; "*", "?", "[...]" do not match
// "/", and "**" matches across directories in "**/x", "x/**" and "x/**/y".
// Malformed lines are ignored, as git does.
func parseGitignore(base string, data []byte) *ignoreFile {
	f := &ignoreFile{base: base}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if r, ok := parseIgnoreLine(string(bytes.TrimSuffix(line, []byte("\r")))); ok {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

func parseIgnoreLine(p string) (ignoreRule, bool) {
	var r ignoreRule
	if p == "" || p[0] == '#' {
		return r, false
	}
	for strings.HasSuffix(p, " ") && !strings.HasSuffix(p, `\ `) {
		p = p[:len(p)-1]
	}
	if p == "" {
		return r, false
	}
	switch {
	case p[0] == '!':
		r.negate = true
		p = p[1:]
	case strings.HasPrefix(p, `\!`), strings.HasPrefix(p, `\#`):
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly = true
		p = strings.TrimRight(p, "/")
	}
	anchored := strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return r, false
	}
	var b strings.Builder
	b.WriteString("^")
	if !anchored && !strings.HasPrefix(p, "**") {
		b.WriteString("(?:.*/)?")
	}
	if !globToRegexp(&b, p) {
		return r, false
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return r, false
	}
	r.re = re
	return r, true
}

// globToRegexp appends the regexp for a gitignore glob; it reports false
// for a pattern git would not match anything with (a trailing backslash).
func globToRegexp(b *strings.Builder, p string) bool {
	for i := 0; i < len(p); {
		atSegStart := i == 0 || p[i-1] == '/'
		switch c := p[i]; {
		case atSegStart && strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 3
		case atSegStart && p[i:] == "**":
			b.WriteString(".*")
			i += 2
		case c == '*':
			b.WriteString("[^/]*")
			for i < len(p) && p[i] == '*' {
				i++
			}
		case c == '?':
			b.WriteString("[^/]")
			i++
		case c == '[':
			n := bracket(b, p[i:])
			if n == 0 {
				b.WriteString(`\[`)
				n = 1
			}
			i += n
		case c == '\\':
			if i+1 == len(p) {
				return false
			}
			b.WriteString(regexp.QuoteMeta(p[i+1 : i+2]))
			i += 2
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			i++
		}
	}
	return true
}

// bracket translates the bracket expression at the start of p and returns
// its length, or 0 when it is not closed (then "[" is a literal).
func bracket(b *strings.Builder, p string) int {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	var cls strings.Builder
	first := true
	for ; i < len(p); i++ {
		c := p[i]
		if c == ']' && !first {
			if negate {
				b.WriteString("[^/")
			} else {
				b.WriteString("[")
			}
			b.WriteString(cls.String())
			b.WriteString("]")
			return i + 1
		}
		first = false
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			cls.WriteString(`\`)
			cls.WriteByte(p[i])
		case c == '-':
			cls.WriteByte('-')
		case c == '[' || c == ']' || c == '^' || c == '\\':
			cls.WriteByte('\\')
			cls.WriteByte(c)
		default:
			cls.WriteByte(c)
		}
	}
	return 0
}

// match reports whether rel (relative to the file's directory) is ignored
// (true) or re-included (false) by the last rule that matches it; decided
// is false when no rule matches.
func (f *ignoreFile) match(rel string, isDir bool) (ignored, decided bool) {
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.re.MatchString(rel) {
			return !r.negate, true
		}
	}
	return false, false
}

// ignoreStack holds the .gitignore files that apply at one point of a walk,
// outermost first.
type ignoreStack []*ignoreFile

// ignored reports whether path (slash-separated, relative to the walk's
// root) is ignored: the deepest .gitignore with a matching rule decides.
func (s ignoreStack) ignored(path string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		f := s[i]
		rel := path
		if f.base != "" {
			var ok bool
			rel, ok = strings.CutPrefix(path, f.base+"/")
			if !ok {
				continue
			}
		}
		if f.above != "" {
			rel = f.above + "/" + rel
		}
		if ignored, decided := f.match(rel, isDir); decided {
			return ignored
		}
	}
	return false
}
