package ptytest

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Hostile holds what a model, a file, a tool or a server may put in text
// that reaches a terminal: a clear-screen CSI, an OSC 52 clipboard write
// ended by BEL, a bare carriage return (which hides what came before on
// the line), a C1 CSI as a character and as a raw byte.
const Hostile = "H\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07over\rwrite\u009b31m\x9bend"

// EscapedOK reports what is wrong with out, text shown on a terminal that
// carried Hostile: a control character written raw, or Hostile not shown
// at all (its first escape must be visible, as \x1b[2J; a one-line
// summary may cut the rest, or turn the "\r" into a space). It returns ""
// when nothing is wrong.
func EscapedOK(out string) string {
	for _, raw := range []string{"\x1b", "\x07", "\r", "\u009b"} {
		if strings.Contains(out, raw) {
			return "holds " + JSONQuote(raw) + " raw"
		}
	}
	if !utf8.ValidString(out) {
		return "holds an invalid byte"
	}
	if !strings.Contains(out, `\x1b[2J`) {
		return "does not show the escapes"
	}
	return ""
}

// JSONQuote returns s as a JSON string, every control character escaped,
// for messages that show terminal text.
func JSONQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
