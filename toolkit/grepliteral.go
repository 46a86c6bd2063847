package toolkit

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// reqLit is a literal every match of a pattern contains: ASCII and
// lower-cased when fold is set, to be looked for in the lower-cased text.
type reqLit struct {
	b    []byte
	fold bool
}

// requiredLiterals returns the literals every match of expr contains, for
// finding candidate lines before running the regexp, the one to search for
// first leading; nil when there is none. A case-insensitive literal comes
// back lower-cased with fold set; it is ASCII and avoids 'k' and 's', whose
// case folding reaches beyond ASCII (U+212A KELVIN SIGN, U+017F LONG S), so
// an ASCII-lowered search finds every line the regexp can match.
//
// The literal searched for first is the one whose rarest byte is least
// common in source code and text ([byteRank]), the longest among equals:
// searching for a common byte such as "(" would stop at nearly every line.
// The others are then checked in each candidate line, so a line lacking
// any of them is rejected without running the regexp.
func requiredLiterals(expr string) []reqLit {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	var lits []reqLit
	var visit func(re *syntax.Regexp)
	visit = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			s, f := string(re.Rune), re.Flags&syntax.FoldCase != 0
			if f {
				s = foldSafe(s)
			}
			l := reqLit{[]byte(s), f}
			if s != "" && !strings.ContainsRune(s, '\n') && !slices.ContainsFunc(lits, l.equal) {
				lits = append(lits, l)
			}
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				visit(sub)
			}
		case syntax.OpCapture, syntax.OpPlus:
			visit(re.Sub[0])
		case syntax.OpRepeat:
			if re.Min >= 1 {
				visit(re.Sub[0])
			}
		}
	}
	visit(re.Simplify())
	if len(lits) == 0 {
		return nil
	}
	best := 0
	for i, l := range lits {
		if a, b := rarity(l.b), rarity(lits[best].b); a < b || (a == b && len(l.b) > len(lits[best].b)) {
			best = i
		}
	}
	lits[0], lits[best] = lits[best], lits[0]
	return lits
}

func (l reqLit) equal(o reqLit) bool { return l.fold == o.fold && string(l.b) == string(o.b) }

// rarity is the rank of the rarest byte of lit ([byteRank]).
func rarity(lit []byte) int {
	r := byteRank(lit[0])
	for _, c := range lit[1:] {
		r = min(r, byteRank(c))
	}
	return r
}

// byteRank roughly ranks how common a byte is in source code and text,
// higher meaning more common.
func byteRank(c byte) int {
	switch {
	case c == ' ' || c == '\t':
		return 10
	case 'a' <= c && c <= 'z':
		return 8
	case strings.IndexByte("().,;:_=\"'{}[]/-*<>&!", c) >= 0, '0' <= c && c <= '9':
		return 6
	case 'A' <= c && c <= 'Z':
		return 5
	case c < utf8.RuneSelf:
		return 4
	}
	return 2
}

// foldSafe returns the longest lower-cased ASCII run of s without 'k' or
// 's'; "" when s is not ASCII.
func foldSafe(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ""
		}
	}
	best := ""
	for _, part := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == 'k' || r == 's' }) {
		if len(part) > len(best) {
			best = part
		}
	}
	return best
}

// lowerASCII writes the ASCII-lower-cased buf into dst, same length.
func lowerASCII(dst, buf []byte) []byte {
	dst = append(dst[:0], buf...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}
