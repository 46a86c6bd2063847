package agent

import (
	"strings"
	"testing"
)

// TestRetextPrefill pins when a cut answer is offered for continuation
// and what is sent: the shown text without trailing whitespace; nothing
// when it is only whitespace, was not kept whole, or the answer streamed
// another block.
func TestRetextPrefill(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		shown []string
		block bool
		want  string // "": not offered
	}{
		"text":            {[]string{"The cause ", "is a \n"}, false, "The cause is a"},
		"only whitespace": {[]string{" \n"}, false, ""},
		"nothing shown":   {nil, false, ""},
		"another block":   {[]string{"The cause "}, true, ""},
		"past the bound":  {[]string{strings.Repeat("x", retextMax+1)}, false, ""},
	}
	for name, tc := range tests {
		var rt retext
		for _, s := range tc.shown {
			rt.delta(s)
		}
		if tc.block {
			rt.block()
		}
		got, ok := rt.prefill()
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: prefill = %q, %v; want %q", name, got, ok, tc.want)
		}
	}
}
