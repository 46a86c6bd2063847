package ghactions

import (
	"strings"
	"testing"
)

func TestEscaping(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ fn, in, want string }{
		{"text", "a | b", `a \| b`},
		{"text", "<img src=x onerror=alert(1)>", `\<img src=x onerror=alert(1)\>`},
		{"text", "[link](http://x) ![i](y) *b* _i_ @team", `\[link\](http://x) \!\[i\](y) \*b\* \_i\_ \@team`},
		{"text", "two\nlines\x1b[31m", `two lines\[31m`},
		{"text", strings.Repeat("é", 10), "éééé…"},
		{"code", "ls | wc", "`ls \\| wc`"},
		{"code", "a `b` c", "``a `b` c``"},
		{"code", "`edge`", "`` `edge` ``"},
		{"code", "", ""},
	} {
		got := Code(c.in)
		if c.fn == "text" {
			got = Text(c.in, 5)
			if !strings.HasPrefix(c.in, "é") {
				got = Text(c.in, 100)
			}
		}
		if got != c.want {
			t.Errorf("%s(%q) = %q, want %q", c.fn, c.in, got, c.want)
		}
	}
}
