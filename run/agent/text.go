package agent

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clip flattens s to one line of at most max runes, ending in … when cut,
// with its control characters shown (see [Shown]).
func Clip(s string, max int) string {
	s = Shown(strings.Join(strings.Fields(s), " "))
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-1]) + "…"
}

// Shown returns s with the characters that would act on a terminal
// written out instead: C0 controls but tab and newline, DEL and invalid
// bytes as \xNN, C1 controls and bidirectional overrides as \uNNNN. The
// text comes from the model, the tools and the workspace; an escape
// sequence in it must not retitle the terminal, write its clipboard
// (OSC 52) or hide lines of the log.
func Shown(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || ActsOnTerminal(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r < 0x20 && r != '\t' && r != '\n' || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case ActsOnTerminal(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// ActsOnTerminal reports whether r is a control character a terminal acts
// on, or one that reorders the text shown (bidirectional controls). Tab
// and newline are not.
func ActsOnTerminal(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// FormatUSD writes an amount in dollars with enough digits for small runs;
// a spend too small for four decimals is "<$0.0001", never "$0.0000".
func FormatUSD(v float64) string {
	if v > 0 && v < 0.00005 {
		return "<$0.0001"
	}
	if v != 0 && v < 0.01 {
		return "$" + strconv.FormatFloat(v, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(v, 'f', 2, 64)
}
