package toolkit

import (
	"fmt"
	"strings"
	"testing"
)

func TestGrepNamedLargeFile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	const lines = 60000 // about 3.7 MB: several chunks
	for i := 1; i <= lines; i++ {
		switch i {
		case 7, 30000, lines:
			fmt.Fprintf(&b, "needle %d\n", i)
		default:
			fmt.Fprintf(&b, "%08d some filler text to make the file big enough\n", i)
		}
	}
	ws := newWS(t, map[string]string{"big/huge.log": b.String()})

	res := call(t, NewGrep(ws, nil), obj{"pattern": "needle", "path": "big/huge.log"})
	want := fmt.Sprintf("big/huge.log:7:needle 7\nbig/huge.log:30000:needle 30000\nbig/huge.log:%d:needle %d", lines, lines)
	if res.IsError || !strings.Contains(res.Content, want) {
		t.Fatalf("grep on the named large file:\n%s\nwant lines:\n%s", res.Content, want)
	}

	// Met while walking, the same file is over the cap and not searched.
	res = call(t, NewGrep(ws, nil), obj{"pattern": "needle", "path": "big"})
	if !res.IsError || strings.Contains(res.Content, "needle 7") || !strings.Contains(res.Content, "over 1 MB not searched") {
		t.Fatalf("grep walking a directory with a large file:\n%s", res.Content)
	}

	res = call(t, NewGrep(ws, nil), obj{"pattern": "needle", "path": "big/huge.log", "max_results": 2})
	if strings.Contains(res.Content, "needle 60000\n") || !strings.Contains(res.Content, "needle 30000") {
		t.Fatalf("max_results on a large file:\n%s", res.Content)
	}
}
