package toolkit

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var grepTree = map[string]string{
	".gitignore":       "ignored/\n*.min.js\n",
	"a.go":             "package a\n\nfunc Alpha() {}\nfunc beta() {}\n",
	"b/b.go":           "package b\n// TODO: alpha\nfunc Bravo() {}\n",
	"b/notes.txt":      "alpha notes\r\nsecond line\r\n",
	"ignored/x.go":     "func Alpha() {} // ignored\n",
	"app.min.js":       "function Alpha(){}\n",
	".git/objects/aa":  "func Alpha() in git\n",
	"bin/tool":         "\x7fELF\x00\x00func Alpha\n",
	"secrets/prod.env": "ALPHA_TOKEN=hunter2\n",
	"secrets/dev.env":  "ALPHA_TOKEN=dev\n",
	"ctx.txt":          "1\n2\n3\nhit\n5\n6\n7\n8\n9\nhit\n11\nhit\n13\n",
	"regex.txt":        "a.b(c\naxb(c\nfoo\nbar\nfoo  bar\nthe end\nend of it\n",
	"long.txt":         strings.Repeat("x", 800) + "needle\n",
	"sub/.gitignore":   "*.txt\n!keep.txt\n",
	"sub/drop.txt":     "alpha drop\n",
	"sub/keep.txt":     "alpha keep\n",
	"link.go":          "->a.go",
	"fifo":             fifoMark, // skipped by the walk, never opened
}

func TestGrep(t *testing.T) {
	t.Parallel()
	ws := newWS(t, grepTree)
	if err := os.WriteFile(filepath.Join(ws.Root(), "big.txt"), []byte(strings.Repeat("alpha\n", grepMaxFileSize/6+10)), 0o644); err != nil {
		t.Fatal(err)
	}
	noSecrets := func(p string) bool { return !strings.HasPrefix(p, "secrets/") }
	tests := []struct {
		name    string
		args    obj
		filter  func(string) bool
		isErr   bool
		want    string
		skipped int
	}{
		{name: "case-insensitive over the tree", args: obj{"pattern": "alpha", "case_insensitive": true},
			want: "a.go:3:func Alpha() {}\nb/b.go:2:// TODO: alpha\nb/notes.txt:1:alpha notes\nsecrets/dev.env:1:ALPHA_TOKEN=dev\nsecrets/prod.env:1:ALPHA_TOKEN=hunter2\nsub/keep.txt:1:alpha keep\n" +
				"[6 matches in 6 files; 1 binary file not searched; 1 file over 1 MB not searched]\n"},
		{name: "policy filter skips and counts", args: obj{"pattern": "ALPHA"}, filter: noSecrets, skipped: 2, isErr: true,
			want: "grep: no match for \"ALPHA\" in . (9 files searched; 2 files skipped by policy; 1 binary file not searched; 1 file over 1 MB not searched)\n"},
		{name: "policy filter with matches", args: obj{"pattern": "ALPHA_TOKEN|func B"}, filter: noSecrets, skipped: 2,
			want: "b/b.go:3:func Bravo() {}\n[1 match in 1 file; 2 files skipped by policy; 1 binary file not searched; 1 file over 1 MB not searched]\n"},
		{name: "include by name", args: obj{"pattern": "^func", "include": "*.go"},
			want: "a.go:3:func Alpha() {}\na.go:4:func beta() {}\nb/b.go:3:func Bravo() {}\n[3 matches in 2 files]\n"},
		{name: "include by path", args: obj{"pattern": "func", "include": "b/**/*.go"},
			want: "b/b.go:3:func Bravo() {}\n[1 match in 1 file]\n"},
		{name: "single file", args: obj{"pattern": "func", "path": "a.go"},
			want: "a.go:3:func Alpha() {}\na.go:4:func beta() {}\n[2 matches in 1 file]\n"},
		{name: "explicit ignored file is searched", args: obj{"pattern": "Alpha", "path": "ignored/x.go"},
			want: "ignored/x.go:1:func Alpha() {} // ignored\n[1 match in 1 file]\n"},
		{name: "subdirectory", args: obj{"pattern": "alpha", "path": "sub"},
			want: "sub/keep.txt:1:alpha keep\n[1 match in 1 file]\n"},
		{name: "fixed string", args: obj{"pattern": "a.b(", "fixed_string": true, "path": "regex.txt"},
			want: "regex.txt:1:a.b(c\n[1 match in 1 file]\n"},
		{name: "regex dot", args: obj{"pattern": `a.b\(`, "path": "regex.txt"},
			want: "regex.txt:1:a.b(c\nregex.txt:2:axb(c\n[2 matches in 1 file]\n"},
		{name: "no match across lines", args: obj{"pattern": `foo\s+bar`, "path": "regex.txt"},
			want: "regex.txt:5:foo  bar\n[1 match in 1 file]\n"},
		{name: "line anchors", args: obj{"pattern": `^end|end$`, "path": "regex.txt"},
			want: "regex.txt:6:the end\nregex.txt:7:end of it\n[2 matches in 1 file]\n"},
		{name: "crlf stripped", args: obj{"pattern": `line$`, "path": "b/notes.txt"}, isErr: true,
			want: "grep: no match for \"line$\" in b/notes.txt (1 file searched)\n"},
		{name: "crlf text", args: obj{"pattern": `second`, "path": "b/notes.txt"},
			want: "b/notes.txt:2:second line\n[1 match in 1 file]\n"},
		{name: "context", args: obj{"pattern": "^hit$", "path": "ctx.txt", "context": 2},
			want: "ctx.txt-2-2\nctx.txt-3-3\nctx.txt:4:hit\nctx.txt-5-5\nctx.txt-6-6\n--\nctx.txt-8-8\nctx.txt-9-9\nctx.txt:10:hit\nctx.txt-11-11\nctx.txt:12:hit\nctx.txt-13-13\n[3 matches in 1 file]\n"},
		{name: "max results", args: obj{"pattern": "^hit$", "path": "ctx.txt", "max_results": 2},
			want: "ctx.txt:4:hit\nctx.txt:10:hit\n[showing the first 2 matches; narrow the pattern, path or include, or raise max_results]\n"},
		{name: "max results with context", args: obj{"pattern": "^hit$", "path": "ctx.txt", "max_results": 1, "context": 1},
			want: "ctx.txt-3-3\nctx.txt:4:hit\nctx.txt-5-5\n[showing the first 1 matches; narrow the pattern, path or include, or raise max_results]\n"},
		{name: "long line cut", args: obj{"pattern": "needle", "path": "long.txt"},
			want: "long.txt:1:" + strings.Repeat("x", grepMaxLineBytes) + " … [line cut]\n[1 match in 1 file]\n"},
		{name: "no match", args: obj{"pattern": "zebra"}, isErr: true,
			want: "grep: no match for \"zebra\" in . (11 files searched; 1 binary file not searched; 1 file over 1 MB not searched)\n"},
		{name: "invalid regex", args: obj{"pattern": "a(b"}, isErr: true, want: "grep: invalid pattern: missing closing ): `a(b`"},
		{name: "newline in pattern", args: obj{"pattern": "a\nb"}, isErr: true, want: "grep: pattern contains a newline; grep matches within single lines"},
		{name: "bad include", args: obj{"pattern": "a", "include": "[x"}, isErr: true, want: `grep: include "[x" is not a valid glob`},
		{name: "missing path", args: obj{"pattern": "a", "path": "nope"}, isErr: true, want: "grep: no such file or directory: nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, NewGrep(ws, tc.filter), tc.args)
			if res.IsError != tc.isErr || res.Content != tc.want {
				t.Errorf("got %v %q\nwant %v %q", res.IsError, res.Content, tc.isErr, tc.want)
			}
			if res.Meta.Skipped != tc.skipped {
				t.Errorf("Skipped = %d, want %d", res.Meta.Skipped, tc.skipped)
			}
			if strings.Contains(res.Content, "hunter2") && tc.filter != nil {
				t.Errorf("a file the filter rejected reached the output")
			}
		})
	}
}

// TestGrepCapDeterministic checks that, over many files searched in
// parallel, a capped result is always the first matches in walk order.
func TestGrepCapDeterministic(t *testing.T) {
	t.Parallel()
	tree := map[string]string{}
	for i := range 300 {
		name := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
		tree[name] = strings.Repeat("match\nno\n", 1+i%3)
	}
	ws := newWS(t, tree)
	tool := NewGrep(ws, nil)
	first := call(t, tool, obj{"pattern": "match", "max_results": 50})
	if !first.Meta.Truncated || strings.Count(first.Content, ":match\n") != 50 {
		t.Fatalf("capped result wrong:\n%s", first.Content)
	}
	// The first lines are d0's files in name order.
	if !strings.HasPrefix(first.Content, "d0/f000.txt:1:match\nd0/f007.txt:1:match\nd0/f007.txt:3:match\n") {
		t.Errorf("first matches not in walk order:\n%.200s", first.Content)
	}
	for range 10 {
		if again := call(t, tool, obj{"pattern": "match", "max_results": 50}); again.Content != first.Content {
			t.Fatalf("results differ between runs:\n%s\n---\n%s", first.Content, again.Content)
		}
	}
}

// TestLineMatcherAgreesWithLineByLine compares the scanning strategies
// (whole buffer, line by line, required literal first) with matching each
// line alone, on random texts and patterns.
func TestLineMatcherAgreesWithLineByLine(t *testing.T) {
	t.Parallel()
	patterns := []string{`ab`, `a\s+b`, `^b`, `a$`, `\bab\b`, `b\n?a`, `a[^x]b`, `^$`, `x*`, `(?s)a.b`, `ba|ab\s`,
		`ab a`, `(?i)AB A`, `b\s+aba`, `(ab )+x`, `[ab]b ab`, `(?i)x?BAB`, `\w+bab$`, `(?s)ab.ab`,
		`(?i:ab)\s+x`, `x\s*(?i:B)a`, `b a\w+ x`, `\w+ \w+x\s`, `A\s*b\s*A`}
	matchers := map[string]*lineMatcher{}
	lineRes := map[string]*regexp.Regexp{}
	for _, pat := range patterns {
		m, err := newLineMatcher(pat, false, false)
		if err != nil {
			t.Fatal(err)
		}
		matchers[pat], lineRes[pat] = m, regexp.MustCompile("(?m)"+pat)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("abAB \n\n x\r")
	for iter := range 1500 {
		buf := make([]byte, rng.IntN(60))
		for i := range buf {
			buf[i] = alphabet[rng.IntN(len(alphabet))]
		}
		pat := patterns[iter%len(patterns)]
		m, lineRe := matchers[pat], lineRes[pat]
		var want []int
		for start := 0; start < len(buf); {
			end := lineEnd(buf, start)
			if lineRe.Match(buf[start:end]) {
				want = append(want, start)
			}
			start = end + 1
		}
		modes := []*lineMatcher{{re: m.re, whole: true}, {re: m.re}, {re: m.re, dfa: m.dfa}}
		if lits := requiredLiterals("(?m)" + pat); lits != nil {
			fold := slices.ContainsFunc(lits, func(l reqLit) bool { return l.fold })
			modes = append(modes, &lineMatcher{re: m.re, lits: lits, fold: fold}, &lineMatcher{re: m.re, lits: lits, fold: fold, dfa: m.dfa})
		}
		for _, mode := range modes {
			var got []int
			mode.each(buf, func(s, e int) bool { got = append(got, s); return true })
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("pattern %q (whole=%v lits=%s dfa=%v) on %q: lines at %v, want %v", pat, mode.whole, fmt.Sprint(mode.lits), mode.dfa != nil, buf, got, want)
			}
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr string
		want []string // the literals, the one searched first leading; "~" marks a folded one
	}{
		{`\w+Handler\(`, []string{"Handler("}},
		{`(?i)PROCESSREQUEST`, []string{"~proce"}},
		{`(?i)Kelvin`, []string{"~elvin"}},
		{`(?i)héllo`, nil},
		{`héllo\d`, []string{"héllo"}},
		{`a|bcd`, nil},
		{`(abc)+`, []string{"abc"}},
		{`x*abcd?`, []string{"abc"}},
		{`(abc)*`, nil},
		{`(abcd){2,3}`, []string{"abcd"}},
		{`ab`, []string{"ab"}},
		{`a\s`, []string{"a"}},
		{`foo\s+barbaz`, []string{"barbaz", "foo"}},
		// The rarest byte leads: '#' is rarer than any byte of "func".
		{`func\s+#`, []string{"#", "func"}},
		// Common single bytes all count, each checked on the line.
		{`\w+\(\w \w+\.\w+\)`, []string{"(", " ", ".", ")"}},
		{`(?i:ab)\s+X`, []string{"X", "~ab"}},
		{`x(y)x`, []string{"x", "y"}},
	}
	for _, tc := range tests {
		var got []string
		for _, l := range requiredLiterals(tc.expr) {
			if l.fold {
				got = append(got, "~"+string(l.b))
			} else {
				got = append(got, string(l.b))
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("requiredLiterals(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

func TestGrepConfinement(t *testing.T) {
	t.Parallel()
	testConfinement(t, func(ws *Workspace) Tool { return NewGrep(ws, nil) },
		func(p string) map[string]any { return obj{"pattern": "TOPSECRET|root", "path": p} })
}

func TestGrepArgs(t *testing.T) {
	t.Parallel()
	testArgErrors(t, NewGrep(newWS(t, nil), nil), map[string]struct{ args, errHas string }{
		"missing pattern": {`{}`, `missing required argument "pattern"`},
		"context range":   {`{"pattern":"a","context":99}`, `argument "context" must be at most 20, got 99`},
		"max type":        {`{"pattern":"a","max_results":"5"}`, `argument "max_results" must be of type integer, got string`},
		"unknown":         {`{"pattern":"a","regex":true}`, `unknown argument "regex"`},
	})
}
