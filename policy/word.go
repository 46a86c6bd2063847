package policy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one argv word as far as the analysis can read it.
type word struct {
	value string // after quote removal; meaningful only when exact
	exact bool   // the shell will pass exactly value
	glob  string // inexact only through globbing: a doublestar pattern of what it may expand to
	src   string // the source text, for display
}

// wordInfo is what readWord learned about a word.
type wordInfo struct {
	value  string
	exact  bool   // no expansion of any kind
	opaque string // non-empty: an expansion the analysis cannot read
	glob   string // the word as a doublestar pattern (quoted parts escaped)
}

// readWord performs quote removal on w. A word with a parameter, command,
// arithmetic or process expansion, ANSI-C or locale quoting is opaque; an
// unquoted glob, brace expansion or leading tilde makes it inexact (the
// shell may pass something else) without being opaque.
func readWord(w *syntax.Word) wordInfo { return readWordEnv(w, nil) }

// readWordEnv is [readWord] where a plain expansion of a variable that
// env holds ($HOME, "${TMPDIR}") reads as its value: the value the
// command will see, which the caller gave. Unquoted, a value that field
// splitting or globbing would change stays opaque. `$?` reads as a
// number the analysis does not know: inexact, never opaque.
func readWordEnv(w *syntax.Word, env map[string]string) wordInfo {
	var b, pat strings.Builder
	info := wordInfo{exact: true}
	unquoted := ""
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v, glob := unescape(p.Value)
			if glob || (i == 0 && strings.HasPrefix(p.Value, "~")) {
				info.exact = false
			}
			unquoted += p.Value
			b.WriteString(v)
			pat.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				info.opaque = "ANSI-C quoting"
			}
			b.WriteString(p.Value)
			pat.WriteString(escapeGlob(p.Value))
		case *syntax.DblQuoted:
			if p.Dollar {
				info.opaque = "locale quoting"
			}
			for _, dp := range p.Parts {
				if v, known, status := envValue(dp, env); known {
					b.WriteString(v)
					pat.WriteString(escapeGlob(v))
					continue
				} else if status {
					info.exact = false
					b.WriteString("0")
					pat.WriteString("[0-9]*")
					continue
				}
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					info.opaque = partName(dp)
					continue
				}
				v := unescapeDouble(lit.Value)
				b.WriteString(v)
				pat.WriteString(escapeGlob(v))
			}
		default:
			v, known, status := envValue(part, env)
			switch {
			case known && !strings.ContainsAny(v, " \t\n*?[]{}\\"):
				b.WriteString(v)
				pat.WriteString(escapeGlob(v))
				unquoted += strings.Repeat("x", len(v)) // no brace or tilde from a value
			case status:
				info.exact = false
				b.WriteString("0")
				pat.WriteString("[0-9]*")
			default:
				info.opaque = partName(part)
			}
		}
	}
	if braceExpands(unquoted) || strings.Contains(unquoted, "=~") || strings.Contains(unquoted, ":~") {
		info.exact = false
	}
	if info.opaque != "" {
		info.exact = false
	}
	info.value = b.String()
	info.glob = pat.String()
	return info
}

// envValue returns the value of a plain expansion of a variable env
// holds; status reports a plain `$?`.
func envValue(p syntax.WordPart, env map[string]string) (value string, known, status bool) {
	pe, ok := p.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil ||
		pe.Repl != nil || pe.Names != 0 || pe.Exp != nil {
		return "", false, false
	}
	if pe.Param.Value == "?" {
		return "", false, true
	}
	v, ok := env[pe.Param.Value]
	if !ok || checkText(v) != nil {
		return "", false, false
	}
	return v, true, false
}

// escapeGlob escapes the characters doublestar treats as special.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, "\\*?[]{},") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\*?[]{},", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// partName names a word part that makes a word opaque.
func partName(p syntax.WordPart) string {
	switch p := p.(type) {
	case *syntax.ParamExp:
		return "parameter expansion"
	case *syntax.CmdSubst:
		if p.Backquotes {
			return "command substitution (backticks)"
		}
		return "command substitution"
	case *syntax.ArithmExp:
		return "arithmetic expansion"
	case *syntax.ProcSubst:
		return "process substitution"
	case *syntax.ExtGlob:
		return "extended glob"
	case *syntax.BraceExp:
		return "brace expansion"
	}
	return fmt.Sprintf("unsupported word part %T", p)
}

// unescape removes backslash escapes from an unquoted literal and reports
// whether it holds an unescaped glob character.
func unescape(s string) (string, bool) {
	if !strings.ContainsAny(s, "\\*?[") {
		return s, false
	}
	var b strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' { // a line continuation disappears
				b.WriteByte(s[i])
			}
			continue
		case c == '*' || c == '?' || c == '[':
			glob = true
		}
		b.WriteByte(c)
	}
	return b.String(), glob
}

// unescapeDouble removes the backslash escapes that double quotes honour.
func unescapeDouble(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// braceExpands reports whether the unquoted text of a word may undergo bash
// brace expansion: an unescaped `{` later closed, with a `,` or `..` in
// between. It errs towards yes.
func braceExpands(s string) bool {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return false
	}
	rest := s[open+1:]
	closing := strings.LastIndexByte(rest, '}')
	if closing < 0 {
		return false
	}
	inner := rest[:closing]
	return strings.Contains(inner, ",") || strings.Contains(inner, "..")
}

// checkText rejects text that holds NUL, CR, other control characters,
// invalid UTF-8 or invisible Unicode characters (format characters, odd
// spaces, fillers), which can hide what a command or path really is. Tab
// and newline are fine.
func checkText(s string) error {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return fmt.Errorf("invalid UTF-8 at byte %d", i)
			}
		}
		if r == '\t' || r == '\n' {
			continue
		}
		if invisible(r) {
			return fmt.Errorf("control or invisible character %U at byte %d", r, i)
		}
	}
	return nil
}

// invisible reports whether r is a control or invisible character.
func invisible(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r == ' ':
		return false
	case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp, unicode.Zs):
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF: // variation selectors
		return true
	case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 || r == 0x2800 || r == 0x034F:
		return true // Hangul fillers, braille blank, combining grapheme joiner
	case r == 0xFFFD || r == 0xFEFF:
		return true
	}
	return false
}

// quoteWord renders a word for display and for exact-fact keys.
func quoteWord(w word) string {
	if !w.exact {
		return w.src
	}
	if w.value != "" && !strings.ContainsAny(w.value, " \t\n'\"\\$`;&|<>()*?[]{}~#=!") {
		return w.value
	}
	q, err := syntax.Quote(w.value, syntax.LangBash)
	if err != nil {
		return fmt.Sprintf("%q", w.value)
	}
	return q
}

// renderArgv renders argv as a shell command line.
func renderArgv(argv []word) string {
	parts := make([]string, len(argv))
	for i, w := range argv {
		parts[i] = quoteWord(w)
	}
	return strings.Join(parts, " ")
}
