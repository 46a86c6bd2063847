package agent

import (
	"strings"
	"testing"
)

// TestRetext drives one request's attempts: each attempt is a list of
// deltas, ended by a cut (retry) or, for the last, by success. It checks
// what reaches the sinks and that a divergence is reported.
func TestRetext(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		attempts [][]string
		want     string // shown text, "|" where a stream cut was reported
	}{
		"no retry":               {[][]string{{"a", "b"}}, "ab"},
		"repeat then extend":     {[][]string{{"The ", "ca"}, {"The ca", "use"}}, "The cause"},
		"repeat split otherwise": {[][]string{{"The ", "ca"}, {"T", "he c", "ause"}}, "The cause"},
		"two cuts, longer shown": {[][]string{{"ab"}, {"abc"}, {"a", "bcd"}}, "abcd"},
		"cut before text":        {[][]string{{}, {"ab"}}, "ab"},
		"diverge in shown part":  {[][]string{{"The cau"}, {"The d", "og"}}, "The cau|The dog"},
		"diverge past shown":     {[][]string{{"ab"}, {"abc"}, {"x"}}, "abc|x"},
		"shorter answer":         {[][]string{{"The cause"}, {"The"}}, "The cause|The"},
		"equal answer":           {[][]string{{"abc"}, {"abc"}}, "abc"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rt retext
			var got strings.Builder
			show := func(out string, diverged bool) {
				if diverged {
					got.WriteString("|")
				}
				got.WriteString(out)
			}
			for i, a := range c.attempts {
				if i > 0 {
					rt.retry("")
				}
				for _, d := range a {
					show(rt.delta(d))
				}
			}
			show(rt.done())
			if got.String() != c.want {
				t.Errorf("shown %q, want %q", got.String(), c.want)
			}
		})
	}
}

// TestRetextBounded pins the memory a long answer costs: whatever its
// length, a retext keeps at most retextMax bytes of shown text (and, in a
// retry, about as much of the attempt), never the whole answer. A retry
// after more than retextMax bytes were shown cannot be compared: it
// departs at once, its text following whole.
func TestRetextBounded(t *testing.T) {
	t.Parallel()
	chunk := strings.Repeat("x", 4096)
	var rt retext
	peak := 0
	for range 4 * retextMax / len(chunk) {
		if out, diverged := rt.delta(chunk); out != chunk || diverged {
			t.Fatalf("first attempt: delta = %d bytes, diverged %v", len(out), diverged)
		}
		peak = max(peak, rt.retained())
	}
	if bound := retextMax + len(chunk); peak > bound {
		t.Errorf("retained %d bytes of a %d-byte answer, bound %d", peak, 4*retextMax, bound)
	}
	rt.retry("")
	out, diverged := rt.delta(chunk)
	if !diverged || out != chunk {
		t.Errorf("retry past the bound: delta = %d bytes, diverged %v; want the chunk, diverged", len(out), diverged)
	}
	for range 2 * retextMax / len(chunk) {
		if out, diverged := rt.delta(chunk); out != chunk || diverged {
			t.Fatalf("after the departure: delta = %d bytes, diverged %v", len(out), diverged)
		}
		peak = max(peak, rt.retained())
	}
	if bound := retextMax + len(chunk); peak > bound {
		t.Errorf("retained %d bytes through a retry, bound %d", peak, bound)
	}
}

// TestRetextAtBound checks that an answer of exactly retextMax bytes is
// still kept, so its retry is compared and only extends it.
func TestRetextAtBound(t *testing.T) {
	t.Parallel()
	shown := strings.Repeat("y", retextMax)
	var rt retext
	rt.delta(shown)
	rt.retry("")
	if out, diverged := rt.delta(shown + "z"); out != "z" || diverged {
		t.Errorf("retry at the bound: delta = %q, diverged %v; want \"z\", not diverged", out, diverged)
	}
}

// retained is the text a retext holds, in bytes.
func (r *retext) retained() int { return len(r.shown) + len(r.attempt) }
