package agent_test

import (
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

func TestFormatUSD(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "$0.00"}, {0.00001, "<$0.0001"}, {0.00005, "$0.0001"}, {0.0042, "$0.0042"}, {0.5, "$0.50"}, {12.345, "$12.35"}} {
		if got := agent.FormatUSD(tc.v); got != tc.want {
			t.Errorf("formatUSD(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		max  int
		want string
	}{
		"whitespace flattened":  {"a\n  b\tc", 10, "a b c"},
		"cut with an ellipsis":  {"abcdefghijkl", 5, "abcd…"},
		"exactly max":           {"abcde", 5, "abcde"},
		"counts runes":          {"héllo wörld", 5, "héll…"},
		"controls shown":        {"a\x1bb", 10, `a\x1bb`},
		"cut after showing":     {"\x1b\x1b", 5, `\x1b…`},
		"leading space dropped": {"  x  ", 3, "x"},
		"empty":                 {"", 3, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := agent.Clip(tc.in, tc.max); got != tc.want {
				t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
}

func TestShown(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"clean text kept":         {"plain\ttext\nwith lines, héllo", "plain\ttext\nwith lines, héllo"},
		"escape sequence":         {"H\x1b[2J", `H\x1b[2J`},
		"carriage return":         {"over\rwrite", `over\x0dwrite`},
		"bell":                    {"\x07", `\x07`},
		"delete":                  {"\x7f", `\x7f`},
		"invalid byte":            {"a\xffb", `a\xffb`},
		"raw C1 byte":             {"\x9b", `\x9b`},
		"C1 control character":    {"\u009b31m", `\u009b31m`},
		"bidi override":           {"abc\u202edef", `abc\u202edef`},
		"bidi isolate":            {"\u2066x\u2069", `\u2066x\u2069`},
		"marks":                   {"\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		"replacement rune kept":   {"\uFFFD", "\uFFFD"},
		"only the controls shown": {"ok\x1bok", `ok\x1bok`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := agent.Shown(tc.in); got != tc.want {
				t.Errorf("Shown(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestActsOnTerminal(t *testing.T) {
	t.Parallel()
	acts := []rune{0x00, 0x07, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x9b, 0x9f, 0x061c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069}
	inert := []rune{'\t', '\n', ' ', 'a', '~', 0xa0, 0xe9, 0x2029, 0x202f, 0x2065, 0x206a, 0xfffd}
	for _, r := range acts {
		if !agent.ActsOnTerminal(r) {
			t.Errorf("ActsOnTerminal(%U) = false, want true", r)
		}
	}
	for _, r := range inert {
		if agent.ActsOnTerminal(r) {
			t.Errorf("ActsOnTerminal(%U) = true, want false", r)
		}
	}
}
