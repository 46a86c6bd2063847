package toolkit

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestLineDFAAgreesWithRegexp matches random lines with the DFA and with
// Go's regexp, over patterns using every kind of instruction: classes,
// case folding, alternation, repetition, anchors, word boundaries, any
// character, and non-ASCII text with invalid UTF-8.
func TestLineDFAAgreesWithRegexp(t *testing.T) {
	t.Parallel()
	patterns := []string{
		`ab`, `a+b`, `[a-c]+x`, `(?i)ÄB`, `(?i)kb`, `^a`, `b$`, `^$`, `\bab\b`, `\Bb`, `a.b`, `(?s)a.b`,
		`[^a]b`, `x*`, `a|b\s`, `(ab|ba){2,}`, `\Aab`, `ab\z`, `é+`, `\pL\d`, `[[:upper:]][[:lower:]]+`,
		`[a-z]+[A-Z][a-z]+[A-Z]\w+`, `(?i)straße`, `\w+\s\w+$`, `(?U)a+?b`, `a{3}`, `(a|b)*a(a|b){12}`,
		`\b`, `\B`, `(?i)[^k]`, `\x{FFFD}`,
	}
	alphabet := []string{"a", "b", "A", "B", "x", " ", "é", "ß", "K", "\u212a", "\xff", "1", "_", "\t", "ä", "Ä"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, pat := range patterns {
		re := regexp.MustCompile("(?m)" + pat)
		d, err := newLineDFA("(?m)"+pat, re)
		if err != nil {
			t.Fatalf("%q: %v", pat, err)
		}
		r := d.get()
		for range 400 {
			var line []byte
			for range rng.IntN(24) {
				line = append(line, alphabet[rng.IntN(len(alphabet))]...)
			}
			if got, want := r.match(line), re.Match(line); got != want {
				t.Fatalf("pattern %q on %q: DFA says %v, regexp %v", pat, line, got, want)
			}
		}
		d.put(r)
	}
}

// TestLineDFABoundedStates checks that a pattern needing more states than
// the cache holds still matches right, and that its runner falls back to
// the regexp.
func TestLineDFABoundedStates(t *testing.T) {
	t.Parallel()
	const pat = `(a|b)*a(a|b){14}` // 2^15 states: far over the cache
	re := regexp.MustCompile("(?m)" + pat)
	d, err := newLineDFA("(?m)"+pat, re)
	if err != nil {
		t.Fatal(err)
	}
	d.maxStates = 64 // flushed often, for a short test
	r := d.get()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		line := make([]byte, 100)
		for i := range line {
			line[i] = "ab"[rng.IntN(2)]
		}
		if got, want := r.match(line), re.Match(line); got != want {
			t.Fatalf("on %q: DFA says %v, regexp %v", line, got, want)
		}
		if len(r.states) > d.maxStates {
			t.Fatalf("%d states cached, bound %d", len(r.states), d.maxStates)
		}
	}
	if !r.gaveUp {
		t.Errorf("runner did not fall back after %d flushes", r.flushes)
	}
}

// FuzzLineDFA checks that the DFA and Go's regexp agree on whether any
// line matches any pattern, and that the literals found for a pattern are
// in every line it matches.
func FuzzLineDFA(f *testing.F) {
	f.Add(`\bab\b`, "x ab y")
	f.Add(`(?i)straße`, "STRASSE Straße")
	f.Add(`[a-z]+[A-Z]\w+`, "fooBar")
	f.Add(`^$|a{2,3}?b\z`, "aab")
	f.Fuzz(func(t *testing.T, pat, line string) {
		if strings.ContainsRune(line, '\n') {
			return // lines have no newline
		}
		re, err := regexp.Compile("(?m)" + pat)
		if err != nil {
			return
		}
		d, err := newLineDFA("(?m)"+pat, re)
		if errors.Is(err, errDFATooBig) {
			return
		}
		if err != nil {
			t.Fatalf("regexp compiles %q, the DFA does not: %v", pat, err)
		}
		r := d.get()
		defer d.put(r)
		want := re.Match([]byte(line))
		if got := r.match([]byte(line)); got != want {
			t.Fatalf("pattern %q on %q: DFA says %v, regexp %v", pat, line, got, want)
		}
		if !want {
			return
		}
		lower := string(lowerASCII(nil, []byte(line)))
		for _, l := range requiredLiterals("(?m)" + pat) {
			hay := line
			if l.fold {
				hay = lower
			}
			if !strings.Contains(hay, string(l.b)) {
				t.Fatalf("pattern %q matches %q, which lacks its literal %q", pat, line, l.b)
			}
		}
	})
}
