package run

import "testing"

func TestClosest(t *testing.T) {
	t.Parallel()
	cmds := []string{"exec", "chat", "policy", "config", "version", "sessions"}
	flags := []string{"max-turns", "model", "max-cost", "verbose", "verify"}
	for _, c := range []struct {
		word  string
		cands []string
		want  string
	}{
		{"exce", cmds, "exec"},    // a swap is one edit
		{"polcy", cmds, "policy"}, // a deletion
		{"sesions", cmds, "sessions"},
		{"exec", cmds, ""}, // the word itself is no suggestion
		{"run", cmds, ""},
		{"fix", cmds, ""},
		{"max-turn", flags, "max-turns"},
		{"modle", flags, "model"},
		{"verfy", flags, "verify"},
		{"frobnicate", flags, ""},
		{"x", flags, ""},
	} {
		if got := closest(c.word, c.cands); got != c.want {
			t.Errorf("closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"exce", "exec", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"abc", "abc", 0},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := editDistance(c.b, c.a); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}
