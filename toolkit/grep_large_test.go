package toolkit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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

// TestGrepNamedLargeFileContextAcrossChunks puts a match on each side of
// the first 1 MB chunk boundary of a named large file: its context lines
// on the other side must be shown.
func TestGrepNamedLargeFileContextAcrossChunks(t *testing.T) {
	t.Parallel()
	const width = 64                            // bytes per line, newline included
	const lastOfChunk = grepMaxFileSize / width // the first chunk ends with this line
	file := func(needle int) string {
		var b strings.Builder
		for i := 1; i <= lastOfChunk+2000; i++ {
			text := fmt.Sprintf("line %d", i)
			if i == needle {
				text = "needle " + text
			}
			fmt.Fprintf(&b, "%-*s\n", width-1, text)
		}
		return b.String()
	}
	ws := newWS(t, map[string]string{"before.log": file(lastOfChunk + 1), "after.log": file(lastOfChunk)})
	line := func(name string, n int, sep string, needle bool) string {
		text := fmt.Sprintf("line %d", n)
		if needle {
			text = "needle " + text
		}
		return fmt.Sprintf("%s%s%d%s%-*s\n", name, sep, n, sep, width-1, text)
	}
	for name, needle := range map[string]int{"before.log": lastOfChunk + 1, "after.log": lastOfChunk} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := call(t, NewGrep(ws, nil), obj{"pattern": "needle", "path": name, "context": 2})
			var want strings.Builder
			for n := needle - 2; n <= needle+2; n++ {
				if n == needle {
					want.WriteString(line(name, n, ":", true))
				} else {
					want.WriteString(line(name, n, "-", false))
				}
			}
			want.WriteString("[1 match in 1 file]\n")
			if res.IsError || res.Content != want.String() {
				t.Errorf("got %q\nwant %q", res.Content, want.String())
			}
		})
	}
}

// TestSearchChunksAgreesWithWholeSearch compares a chunked search, with
// chunks small enough for every boundary case, to searching the whole
// text at once, on random texts.
func TestSearchChunksAgreesWithWholeSearch(t *testing.T) {
	t.Parallel()
	m, err := newLineMatcher("ab", false, false)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 9))
	alphabet := []byte("ab x\n\n")
	for iter := range 600 {
		size := 256 + rng.IntN(64) // a quarter chunk holds 3 lines of context
		ctx := rng.IntN(4)
		text := make([]byte, 0, 3000)
		for len(text) < 500+rng.IntN(2500) {
			for range rng.IntN(20) { // lines of at most 20 bytes
				text = append(text, alphabet[rng.IntN(len(alphabet)-2)])
			}
			text = append(text, '\n')
		}
		if rng.IntN(2) == 0 {
			text = text[:len(text)-1] // no final newline
		}
		wantHits, wantN := m.search(text, ctx, 1<<30)
		s := grepSearch{m: m, context: ctx, max: 1 << 30}
		r := &grepFile{}
		s.searchChunks(bytes.NewReader(text), r, nil, size)
		if r.matches != wantN || fmt.Sprint(r.hits) != fmt.Sprint(wantHits) {
			t.Fatalf("iteration %d, chunk %d, context %d, text %q:\ngot  %d %v\nwant %d %v", iter, size, ctx, text, r.matches, r.hits, wantN, wantHits)
		}
	}
}

// TestSearchChunksLongLine checks the line numbers after a line longer than
// a chunk, and that its tail is not searched as a line of its own.
func TestSearchChunksLongLine(t *testing.T) {
	t.Parallel()
	m, err := newLineMatcher("ab", false, false)
	if err != nil {
		t.Fatal(err)
	}
	text := "ab one\n" + strings.Repeat("x", 300) + "ab tail of a long line\nab three\nfour\nab five"
	s := grepSearch{m: m, context: 1, max: 100}
	r := &grepFile{}
	s.searchChunks(strings.NewReader(text), r, nil, 64)
	want := []grepHit{{1, "ab one", true}, {2, strings.Repeat("x", 64-7), false}, {3, "ab three", true}, {4, "four", false}, {5, "ab five", true}}
	if fmt.Sprint(r.hits) != fmt.Sprint(want) || r.matches != 3 {
		t.Errorf("hits %v (%d matches), want %v", r.hits, r.matches, want)
	}
}

// TestSearchChunksLimit checks that a chunked search stops at the limit
// with the same matches as a whole search.
func TestSearchChunksLimit(t *testing.T) {
	t.Parallel()
	m, err := newLineMatcher("ab", false, false)
	if err != nil {
		t.Fatal(err)
	}
	text := []byte(strings.Repeat("ab\nx\n", 200))
	for _, max := range []int{1, 7, 50} {
		s := grepSearch{m: m, context: 1, max: max}
		r := &grepFile{}
		s.searchChunks(bytes.NewReader(text), r, nil, 64)
		want, n := m.search(text, 1, max+1)
		if r.matches != n || fmt.Sprint(r.hits) != fmt.Sprint(want) {
			t.Errorf("max %d: got %d %v\nwant %d %v", max, r.matches, r.hits, n, want)
		}
	}
}
