package sink

import (
	"bytes"
	"testing"
)

// TestJSONShownWriterSplits: a rune cut across writes comes out as from
// one write.
func TestJSONShownWriterSplits(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"t":"é ok"}` + "\n":                     `{"t":"é ok"}` + "\n",
		`{"t":"a` + "\u009b" + `31m"}`:            `{"t":"a\u009b31m"}`,
		`{"t":"` + "\u202e" + `evil","d":"\x7f"}`: `{"t":"\u202eevil","d":"\x7f"}`,
		"raw \x1b[2J\r\tend\n":                    `raw \u001b[2J\u000d` + "\tend\n",
		"bad \xff\xe2\x80 x":                      `bad \ufffd\ufffd\ufffd x`,
	} {
		for cut := 0; cut <= len(in); cut++ {
			var b bytes.Buffer
			w := NewJSONShown(&b)
			for _, p := range []string{in[:cut], in[cut:]} {
				if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", p, n, err)
				}
			}
			if b.String() != want {
				t.Errorf("%q cut at %d: got %q, want %q", in, cut, b.String(), want)
			}
		}
	}
}
