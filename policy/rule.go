package policy

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"mvdan.cc/sh/v3/syntax"
)

// rule is one [[rule]] entry, or one --allow/--deny flag.
type rule struct {
	id       string // the id, else "FILE rule N"
	class    Class
	decision Decision
	commands []cmdPattern // shell rules
	paths    []string     // read and write rules: cleaned doublestar patterns
	names    []string     // mcp rules: doublestar patterns of "SERVER/TOOL"
	reason   string
}

// cmdPattern is one command pattern: literal words after quote removal, and
// whether a final `*` matches zero or more further words.
type cmdPattern struct {
	text  string
	words []string
	rest  bool
}

// parseCommandPattern parses a command pattern with the shell parser, so
// quoting works as in a command. Only plain words are allowed, and a bare
// `*` only as the last word.
func parseCommandPattern(s string) (cmdPattern, error) {
	if err := checkText(s); err != nil {
		return cmdPattern{}, err
	}
	f, err := parseShell(s, langBash)
	if err != nil {
		return cmdPattern{}, fmt.Errorf("command pattern %q does not parse: %w", s, err)
	}
	if len(f.Stmts) != 1 {
		return cmdPattern{}, fmt.Errorf("command pattern %q must be exactly one simple command", s)
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 {
		return cmdPattern{}, fmt.Errorf("command pattern %q must be one simple command without redirects, assignments or operators", s)
	}
	p := cmdPattern{text: s}
	for i, w := range call.Args {
		if w.Lit() == "*" {
			if i != len(call.Args)-1 {
				return cmdPattern{}, fmt.Errorf("command pattern %q: `*` may only be the last word", s)
			}
			if i == 0 {
				return cmdPattern{}, fmt.Errorf("command pattern %q: the first word must name a command", s)
			}
			p.rest = true
			break
		}
		v := readWord(w)
		if v.opaque != "" || !v.exact {
			return cmdPattern{}, fmt.Errorf("command pattern %q: word %d is not a plain word (no expansions or globs; only a final bare * is a wildcard)", s, i+1)
		}
		p.words = append(p.words, v.value)
	}
	if p.words[0] == "" {
		return cmdPattern{}, fmt.Errorf("command pattern %q: empty command name", s)
	}
	return p, nil
}

// matchCommand reports whether argv matches the pattern under a rule of
// decision d. Allow and ask rules need argv[0] to equal the first word and
// every further word in place; an argument the analysis could not read
// exactly never matches an allow rule's literal word and always matches an
// ask or deny rule's.
//
// Deny rules match broadly: argv[0] also by basename, regardless of case
// (a case-insensitive file system runs `RM` as rm), or as a glob that could
// expand to the name; and options may stand before a pattern word, each
// with or without a value, so `git -C . push` and `git --no-pager push`
// meet `git push *`.
func (p cmdPattern) matchCommand(argv []word, d Decision) bool {
	if len(argv) == 0 || !p.matchName(argv[0], d) {
		return false
	}
	if d == Deny {
		return p.matchDenyArgs(argv)
	}
	if len(argv) < len(p.words) || (!p.rest && len(argv) != len(p.words)) {
		return false
	}
	for i := 1; i < len(p.words); i++ {
		if !matchArg(argv[i], p.words[i], d) {
			return false
		}
	}
	return true
}

// maxOptionSkips bounds how many options a deny match steps over; a
// command with more options in a row than this meets the deny rule (too
// many to tell, so it fails closed).
const maxOptionSkips = 32

// matchName matches argv[0] against the pattern's first word.
func (p cmdPattern) matchName(w word, d Decision) bool {
	pw := p.words[0]
	switch {
	case w.exact && w.value == pw:
		return true
	case d != Deny:
		return false
	case w.exact:
		return strings.EqualFold(path.Base(w.value), path.Base(pw))
	}
	return globMatches(w.glob, pw)
}

// matchArg matches one argument against a pattern word.
func matchArg(w word, pw string, d Decision) bool {
	if !w.exact {
		return d != Allow
	}
	return w.value == pw
}

// matchDenyArgs matches argv[1:] against the pattern words after the
// first, stepping over options (each alone or with a value) before any
// pattern word. It runs in time linear in len(argv): for each argv position
// it keeps, per pattern word, the most option skips left on reaching it.
func (p cmdPattern) matchDenyArgs(argv []word) bool {
	n, k := len(argv), len(p.words)
	var rows [3][]int // rows[j%3][i]: skips left at argv j, pattern word i; -1 unreachable
	for r := range rows {
		rows[r] = make([]int, k+1)
		for i := range rows[r] {
			rows[r][i] = -1
		}
	}
	relax := func(j, i, s int) {
		if row := rows[j%3]; s > row[i] {
			row[i] = s
		}
	}
	relax(1, 1, maxOptionSkips)
	for j := 1; j <= n; j++ {
		cur := rows[j%3]
		for i := 1; i <= k; i++ {
			s := cur[i]
			switch {
			case s < 0:
				continue
			case i == k:
				if p.rest || j == n {
					return true
				}
				continue
			case j == n:
				continue
			}
			if matchArg(argv[j], p.words[i], Deny) {
				relax(j+1, i+1, s)
			}
			if isOption(argv[j]) {
				if s == 0 {
					return true
				}
				relax(j+1, i, s-1)
				if j+2 <= n {
					relax(j+2, i, s-1)
				}
			}
		}
		for i := range cur {
			cur[i] = -1
		}
	}
	return false
}

// isOption reports whether a word may be an option: it starts with "-", or
// the analysis cannot read it.
func isOption(w word) bool {
	return !w.exact || (len(w.value) > 1 && w.value[0] == '-')
}

// globMatches reports whether a globbed command name could expand to the
// command name, by path or by basename.
func globMatches(glob, name string) bool {
	if glob == "" {
		return false
	}
	if ok, err := doublestar.Match(glob, name); ok && err == nil {
		return true
	}
	ok, err := doublestar.Match(path.Base(glob), path.Base(name))
	return ok && err == nil
}

// coveredBy reports whether every argv this (allow) pattern matches is also
// matched by the deny pattern d.
func (p cmdPattern) coveredBy(d cmdPattern) bool {
	if path.Base(p.words[0]) != path.Base(d.words[0]) {
		return false
	}
	if d.rest {
		if len(d.words) > len(p.words) {
			return false
		}
	} else if p.rest || len(p.words) != len(d.words) {
		return false
	}
	for i := 1; i < len(d.words); i++ {
		if p.words[i] != d.words[i] {
			return false
		}
	}
	return true
}

// parsePathPattern validates a path pattern: clean, slash-separated,
// relative to the workspace or absolute, a valid doublestar glob.
func parsePathPattern(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty path pattern")
	}
	if err := checkText(s); err != nil {
		return "", err
	}
	if strings.HasPrefix(s, "./") && len(s) > 2 {
		s = s[2:]
	}
	if c := path.Clean(s); c != s {
		return "", fmt.Errorf("path pattern %q is not clean (write %q)", s, c)
	}
	if s == ".." || strings.HasPrefix(s, "../") {
		return "", fmt.Errorf("path pattern %q leaves the workspace; name the directory with an absolute pattern", s)
	}
	if !doublestar.ValidatePattern(s) {
		return "", fmt.Errorf("path pattern %q is not a valid glob", s)
	}
	return s, nil
}

// matchPath reports whether the cleaned path p matches pattern pat under a
// rule of decision d. Absolute patterns only match absolute paths and
// relative ones relative paths. Deny rules match without regard to case, so
// `.ENV` on a case-insensitive file system is still `.env`.
func matchPath(pat, p string, d Decision) bool {
	if strings.HasPrefix(pat, "/") != strings.HasPrefix(p, "/") {
		return false
	}
	if d == Deny {
		pat, p = strings.ToLower(pat), strings.ToLower(p)
	}
	ok, err := doublestar.Match(pat, p)
	return ok && err == nil
}

// pathCoveredBy reports whether every path the allow pattern a matches is
// matched by the deny pattern d. It recognises the common cases (same
// pattern, `**`, a literal path the deny matches, a `dir/**` deny above the
// allow) and otherwise says no.
func pathCoveredBy(a, d string) bool {
	if strings.HasPrefix(a, "/") != strings.HasPrefix(d, "/") {
		return false
	}
	la, ld := strings.ToLower(a), strings.ToLower(d)
	if la == ld || ld == "**" || ld == "/**" {
		return true
	}
	if !strings.ContainsAny(a, "*?[{\\") && matchPath(d, a, Deny) {
		return true
	}
	if prefix, ok := strings.CutSuffix(ld, "/**"); ok && !strings.ContainsAny(prefix, "*?[{\\") {
		return strings.HasPrefix(la, prefix+"/")
	}
	return false
}
