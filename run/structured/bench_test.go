package structured

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkValidate100KB: the local check of a 100 KB answer against a
// 50-property schema (the bar: under 5 ms).
func BenchmarkValidate100KB(b *testing.B) {
	var props, req []string
	for i := range 50 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string","maxLength":4000}`, i))
		req = append(req, fmt.Sprintf(`"p%d"`, i))
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `],"additionalProperties":false}`
	s := mustParse(b, schema)
	var fields []string
	for i := range 50 {
		fields = append(fields, fmt.Sprintf(`"p%d":%q`, i, strings.Repeat("x", 2000)))
	}
	doc := []byte("{" + strings.Join(fields, ",") + "}")
	if len(doc) < 100_000 {
		b.Fatalf("answer is %d bytes", len(doc))
	}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if ps := s.Validate(doc); ps != nil {
			b.Fatal(ps)
		}
	}
}
