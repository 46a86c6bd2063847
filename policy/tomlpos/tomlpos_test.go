package tomlpos

import (
	"strings"
	"testing"
)

func TestIndex(t *testing.T) {
	t.Parallel()
	doc := []byte(`model = "m"

[limits]
max_turns = 3
inline = { a = 1, b = { c = 2 } }
[prices."gpt-4.1"]
input = 1
x.y.z = 1

[[rule]]
decision = "allow"
[[rule]]
decision = "deny"
paths = ["a"]
[[rule]]
`)
	l := Index(doc)
	for _, tc := range []struct {
		path []string
		want int
	}{
		{[]string{"model"}, 1},
		{[]string{"limits"}, 3},
		{[]string{"limits", "max_turns"}, 4},
		{[]string{"limits", "inline"}, 5},
		{[]string{"limits", "inline", "b", "c"}, 5},
		{[]string{"prices", "gpt-4.1"}, 6},
		{[]string{"prices", "gpt-4.1", "input"}, 7},
		{[]string{"prices", "gpt-4.1", "x"}, 8},
		{[]string{"prices", "gpt-4.1", "x", "y", "z"}, 8},
		{[]string{"rule"}, 10},
		{[]string{"rule", "[0]"}, 10},
		{[]string{"rule", "[0]", "decision"}, 11},
		{[]string{"rule", "[1]"}, 12},
		{[]string{"rule", "[1]", "paths"}, 14},
		{[]string{"rule", "[2]"}, 15},
		{[]string{"prices", "gpt-4.1", "missing"}, 0},
		{[]string{"nowhere"}, 0},
	} {
		if got := l.Line(tc.path...); got != tc.want {
			t.Errorf("Line(%q) = %d, want %d", tc.path, got, tc.want)
		}
	}
	for path, want := range map[string]int{
		"prices\x1fgpt-4.1\x1fmissing": 6,
		"limits\x1fnope\x1fdeeper":     3,
		"nowhere":                      0,
	} {
		if got := l.Nearest(strings.Split(path, "\x1f")...); got != want {
			t.Errorf("Nearest(%q) = %d, want %d", path, got, want)
		}
	}
	for key, want := range map[string]int{
		"model": 1, "limits.max_turns": 4, "rule[1]": 12, "rule[1].paths": 14,
		"rule[0].decision": 11, "rule[3]": 0, "limits.inline.b.c": 5,
	} {
		if got := l.Dotted(key); got != want {
			t.Errorf("Dotted(%q) = %d, want %d", key, got, want)
		}
	}
}

// TestIndexStopsAtSyntaxError checks that a broken document yields the
// lines found before the error.
func TestIndexStopsAtSyntaxError(t *testing.T) {
	t.Parallel()
	l := Index([]byte("a = 1\nb = \nc = 3\n"))
	if l.Line("a") != 1 || l.Line("c") != 0 {
		t.Errorf("a at %d, c at %d; want 1 and 0", l.Line("a"), l.Line("c"))
	}
}

// BenchmarkIndex indexes a long policy-like document: the line counter
// must not rescan the document from its start for every key.
func BenchmarkIndex(b *testing.B) {
	var sb strings.Builder
	for range 2000 {
		sb.WriteString("[[rule]]\ndecision = \"allow\"\npaths = [\"src/**\"]\n")
	}
	doc := []byte(sb.String())
	b.ReportAllocs()
	for b.Loop() {
		Index(doc)
	}
}
