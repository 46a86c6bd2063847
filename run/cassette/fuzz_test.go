package cassette

import (
	"testing"
)

// FuzzTruncated checks that every strict prefix of a complete cassette is
// refused as a *FormatError, and that Parse never panics on arbitrary
// bytes.
func FuzzTruncated(f *testing.F) {
	full := `{"kind":"header","version":1,"provider":"p","type":"anthropic","model":"m"}
{"kind":"exchange","seq":1,"method":"POST","path":"/v1/messages","request":{"a":[1,2]},"status":200,"body":"event: x\ndata: {}\n\n"}
{"kind":"exchange","seq":2,"method":"POST","path":"/v1/messages","request":{},"error":"connection reset"}
{"kind":"end","exchanges":2}
`
	if _, err := Parse("full", []byte(full)); err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{0, 1, 50, 200, len(full) - 2} {
		f.Add(n, []byte(nil))
	}
	f.Add(-1, []byte("{\"kind\":\"header\"}\n{"))
	f.Fuzz(func(t *testing.T, cut int, junk []byte) {
		if cut < 0 {
			Parse("junk", junk) // must not panic
			return
		}
		cut %= len(full) - 1 // strictly shorter than the cassette without its final newline
		if _, err := Parse("cut", []byte(full[:cut])); err == nil {
			t.Fatalf("a cassette cut at byte %d of %d parsed", cut, len(full))
		}
	})
}
