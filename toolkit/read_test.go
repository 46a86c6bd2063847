package toolkit

import (
	"bufio"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	t.Parallel()
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	wide := strings.Repeat(strings.Repeat("x", 99)+"\n", 1000) // 100 KB
	ws := newWS(t, map[string]string{
		"a.txt":       "alpha\nbeta\ngamma\n",
		"nofinal.txt": "one\ntwo",
		"nofinal3":    "one\ntwo\nthree",
		"crlf.txt":    "one\r\ntwo\r\n",
		"long.txt":    long.String(),
		"wide.txt":    wide,
		"huge1.txt":   strings.Repeat("y", 60<<10) + "\nnext\n",
		"bin.dat":     "ELF\x00\x01\x02binary",
		"bad.txt":     "ok \xff\xfe end\n",
		"empty.txt":   "",
		"dir/f":       "x",
		"link":        "->a.txt",
	})
	tool := NewRead(ws, NewReadTracker())
	tests := []struct {
		name      string
		args      obj
		isErr     bool
		has       []string // substrings the content must contain
		hasNot    []string
		truncated bool
	}{
		{"whole file", obj{"path": "a.txt"}, false,
			[]string{"File: a.txt (3 lines)\n", "     1\talpha\n     2\tbeta\n     3\tgamma\n"}, []string{"not shown"}, false},
		{"offset and limit", obj{"path": "a.txt", "offset": 2, "limit": 1}, false,
			[]string{"File: a.txt (3 lines; showing 2-2)\n     2\tbeta\n", "[limit reached: lines 3-3 not shown; read on with offset=3]"}, []string{"alpha", "gamma"}, false},
		{"offset to end", obj{"path": "a.txt", "offset": 3}, false, []string{"showing 3-3", "     3\tgamma\n"}, []string{"not shown"}, false},
		{"no final newline", obj{"path": "nofinal.txt"}, false, []string{"(2 lines)", "     2\ttwo\n"}, nil, false},
		{"no final newline, counted past the page", obj{"path": "nofinal3", "limit": 1}, false, []string{"(3 lines; showing 1-1)"}, nil, false},
		{"crlf shown without CR", obj{"path": "crlf.txt"}, false, []string{"     1\tone\n     2\ttwo\n"}, []string{"\r"}, false},
		{"default limit", obj{"path": "long.txt"}, false,
			[]string{"File: long.txt (2500 lines; showing 1-2000)", "  2000\tline 2000\n", "[default limit of 2000 lines: lines 2001-2500 not shown; read on with offset=2001]"},
			[]string{"line 2001\n"}, true},
		{"explicit limit is not truncation", obj{"path": "long.txt", "offset": 2400, "limit": 200}, false,
			[]string{"showing 2400-2500", "  2500\tline 2500\n"}, []string{"not shown"}, false},
		{"byte cap", obj{"path": "wide.txt"}, false,
			[]string{"File: wide.txt (1000 lines; showing 1-", "[output capped at 50 KB: lines", "not shown; read on with offset="}, nil, true},
		{"single line over the cap", obj{"path": "huge1.txt"}, false,
			[]string{"(2 lines; showing 1-1)", "[line cut at 50 KB]", "read on with offset=2"}, nil, true},
		{"binary refused with size", obj{"path": "bin.dat"}, true, []string{"bin.dat is a binary file (12 bytes)"}, []string{"ELF"}, false},
		{"invalid utf8 replaced", obj{"path": "bad.txt"}, false, []string{"ok \uFFFD end"}, nil, false},
		{"empty file", obj{"path": "empty.txt"}, false, []string{"File: empty.txt (empty)"}, nil, false},
		{"directory", obj{"path": "dir"}, true, []string{"dir is a directory; use ls"}, nil, false},
		{"missing", obj{"path": "nope.txt"}, true, []string{"file not found: nope.txt"}, nil, false},
		{"offset past end", obj{"path": "a.txt", "offset": 10}, true, []string{"offset 10 is past the end of a.txt (3 lines)"}, nil, false},
		{"symlink inside", obj{"path": "link"}, false, []string{"File: link (3 lines)", "alpha"}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, tool, tc.args)
			if res.IsError != tc.isErr {
				t.Fatalf("IsError = %v, want %v; content %q", res.IsError, tc.isErr, res.Content)
			}
			for _, s := range tc.has {
				if !strings.Contains(res.Content, s) {
					t.Errorf("content lacks %q:\n%.600s", s, res.Content)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(res.Content, s) {
					t.Errorf("content has %q:\n%.600s", s, res.Content)
				}
			}
			if res.Meta.Truncated != tc.truncated {
				t.Errorf("Truncated = %v, want %v", res.Meta.Truncated, tc.truncated)
			}
			if len(res.Content) > readMaxBytes+200 {
				t.Errorf("content is %d bytes, over the cap", len(res.Content))
			}
		})
	}
}

// TestReadCapResumes follows the notices through a capped file and checks
// every line is seen exactly once.
func TestReadCapResumes(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "%05d %s\n", i, strings.Repeat("z", 60))
	}
	ws := newWS(t, map[string]string{"f.txt": b.String()})
	tool := NewRead(ws, NewReadTracker())
	seen := 0
	offset := 1
	for range 20 {
		res := call(t, tool, obj{"path": "f.txt", "offset": offset})
		for _, l := range strings.Split(res.Content, "\n") {
			if _, text, ok := strings.Cut(l, "\t"); ok {
				seen++
				if want := fmt.Sprintf("%05d", seen); !strings.HasPrefix(text, want) {
					t.Fatalf("line %d is %q", seen, text)
				}
			}
		}
		_, next, ok := strings.Cut(res.Content, "offset=")
		if !ok {
			break
		}
		if _, err := fmt.Sscanf(next, "%d", &offset); err != nil {
			t.Fatal(err)
		}
	}
	if seen != 3000 {
		t.Errorf("saw %d lines, want 3000", seen)
	}
}

func TestReadConfinement(t *testing.T) {
	t.Parallel()
	testConfinement(t, func(ws *Workspace) Tool { return NewRead(ws, NewReadTracker()) },
		func(p string) map[string]any { return obj{"path": p} })
}

func TestReadArgs(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"a": "a"})
	testArgErrors(t, NewRead(ws, NewReadTracker()), map[string]struct{ args, errHas string }{
		"missing path":  {`{}`, `missing required argument "path"`},
		"null args":     {`null`, `missing required argument "path"`},
		"unknown arg":   {`{"path":"a","lines":3}`, `unknown argument "lines"`},
		"wrong type":    {`{"path":"a","offset":"10"}`, `argument "offset" must be of type integer, got string`},
		"path not text": {`{"path":7}`, `argument "path" must be of type string, got number`},
		"not an object": {`[1]`, `arguments are not a JSON object`},
		"negative":      {`{"path":"a","limit":-1}`, `argument "limit" must be at least 1, got -1`},
	})
}

// TestLineReaderKeepsLongLinesBounded checks that a line far longer than a
// page is consumed without being held: a checkout can hold a file of one
// 300 MB line, which read used to copy whole several times (1.6 GB).
func TestLineReaderKeepsLongLinesBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 8<<20)
	lr := lineReader{br: bufio.NewReaderSize(strings.NewReader(long+"\nshort\n"+long), 64<<10), max: readMaxBytes + 1}
	var got []int
	for {
		line, ok, err := lr.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, len(line))
		if cap(lr.buf) > 2*readMaxBytes+64<<10 {
			t.Fatalf("line %d: buffer grew to %d bytes", len(got), cap(lr.buf))
		}
	}
	want := []int{readMaxBytes + 1, len("short\n"), readMaxBytes + 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("line lengths %v, want %v", got, want)
	}
}

// Reading a small file allocates about its size, not the large buffers a
// big file is read through (each call used to allocate 320 KB, most of a
// read round trip's garbage).
func TestReadSmallFileAllocates(t *testing.T) {
	ws := newWS(t, map[string]string{"a.txt": "alpha\nbeta\ngamma\n"})
	tool := NewRead(ws, NewReadTracker())
	args := []byte(`{"path":"a.txt","limit":1}`)
	if _, err := tool.Run(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if res, err := tool.Run(context.Background(), args); err != nil || !strings.Contains(res.Content, "(3 lines; showing 1-1)") {
			t.Fatalf("read: %v %q", err, res.Content)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 24<<10 {
		t.Errorf("a read of a 17-byte file allocates %d bytes, want at most 24 KB", per)
	}
}

// BenchmarkReadArgs measures checking a read call's arguments against its
// schema (done twice a call: for the judge, then to run).
func BenchmarkReadArgs(b *testing.B) {
	args := []byte(`{"path":"a.txt","offset":2,"limit":10}`)
	for b.Loop() {
		var p readParams
		if err := decodeArgs(readArgs, args, &p); err != nil || p.Limit != 10 {
			b.Fatal(err)
		}
	}
}
