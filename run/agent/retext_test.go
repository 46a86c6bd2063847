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
					rt.retry()
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
