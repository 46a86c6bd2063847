package toolkit

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// minLiteral is the shortest required literal worth searching for first:
// even one byte found with IndexByte beats running the regexp on every line.
const minLiteral = 1

// requiredLiteral returns a literal string that every match of expr
// contains, for searching candidate lines before running the regexp, or
// nil. A case-insensitive literal comes back lower-cased with fold set; it
// is ASCII and avoids 'k' and 's', whose case folding reaches beyond ASCII
// (U+212A KELVIN SIGN, U+017F LONG S), so an ASCII-lowered search finds
// every line the regexp can match.
func requiredLiteral(expr string) (lit []byte, fold bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, false
	}
	best, bestFold := "", false
	var visit func(re *syntax.Regexp)
	visit = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			s, f := string(re.Rune), re.Flags&syntax.FoldCase != 0
			if f {
				s = foldSafe(s)
			}
			if len(s) > len(best) && !strings.ContainsRune(s, '\n') {
				best, bestFold = s, f
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
	if len(best) < minLiteral {
		return nil, false
	}
	return []byte(best), bestFold
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
