package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rubichan/rubichan/run/exit"
)

func TestSpillLargeStdin(t *testing.T) {
	t.Parallel()
	var src bytes.Buffer
	for i := 1; src.Len() < 300<<10; i++ {
		fmt.Fprintf(&src, "line %06d\n", i)
	}
	src.WriteString("no newline at the end")
	want := src.Bytes()
	wantLines := int64(bytes.Count(want, []byte{'\n'})) + 1

	tmp := t.TempDir()
	in, err := Read(bytes.NewReader(want), Options{Args: []string{"find the needle"}, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	s := in.Spill
	if s == nil {
		t.Fatalf("input of %d bytes was not spilled", len(want))
	}
	got, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("spill file differs from stdin: %d bytes, want %d", len(got), len(want))
	}
	if s.Size != int64(len(want)) || s.Lines != wantLines {
		t.Errorf("size %d lines %d, want %d and %d", s.Size, s.Lines, len(want), wantLines)
	}
	if fi, err := os.Stat(s.Dir); err != nil || fi.Mode().Perm() != 0o700 || filepath.Dir(s.Dir) != tmp {
		t.Errorf("spill dir %s: %v, mode %v", s.Dir, err, fi.Mode())
	}
	for _, w := range []string{
		s.Path, fmt.Sprintf(`bytes="%d"`, len(want)), fmt.Sprintf(`lines="%d"`, wantLines),
		"line 000001\n", "line 000020\n", "no newline at the end\n</stdin>\n\nfind the needle",
	} {
		if !strings.Contains(in.Text, w) {
			t.Errorf("message lacks %q", w)
		}
	}
	if strings.Contains(in.Text, "line 000021\n") || len(in.Text) > 8<<10 {
		t.Errorf("message carries more than the previews (%d bytes)", len(in.Text))
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("spill dir left behind: %v", err)
	}
}

func TestInlineLimitBoundary(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10, 11} {
		in, err := Read(strings.NewReader(strings.Repeat("x", n)), Options{InlineMax: 10, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if spilled := in.Spill != nil; spilled != (n > 10) {
			t.Errorf("%d bytes with limit 10: spilled = %v", n, spilled)
		}
		in.Close()
	}
}

// errReader fails after some data, like a broken pipe.
type errReader struct{ n int }

func (r *errReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = 'a'
	}
	r.n -= k
	return k, nil
}

func TestSpillErrorLeavesNothing(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	_, err := Read(&errReader{n: 100}, Options{Args: []string{"x"}, InlineMax: 10, TempDir: tmp})
	if err == nil {
		t.Fatal("a failing stdin read did not fail the input")
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestSpillStatsTail(t *testing.T) {
	t.Parallel()
	var data []byte
	for i := 0; len(data) < 3*len(spillStats{}.ring)+17; i++ {
		data = append(data, byte('a'+i%26))
	}
	// Feed the same data in chunks of every size pattern, the tail must match.
	for _, chunk := range []int{1, 7, 1000, len(spillStats{}.ring), len(spillStats{}.ring) + 5, len(data)} {
		st := &spillStats{}
		for off := 0; off < len(data); off += chunk {
			st.Write(data[off:min(off+chunk, len(data))])
		}
		want := data[len(data)-len(st.ring):]
		if got := st.tail(); !bytes.Equal(got, want) {
			t.Errorf("chunk %d: tail differs", chunk)
		}
		if st.size != int64(len(data)) {
			t.Errorf("chunk %d: size %d", chunk, st.size)
		}
	}
	st := &spillStats{}
	st.Write([]byte("ab\ncd"))
	if string(st.tail()) != "ab\ncd" || st.lines != 1 {
		t.Errorf("short tail %q lines %d", st.tail(), st.lines)
	}
}

func TestPreviews(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	if got := headLines([]byte(b.String())); !strings.HasPrefix(got, "1\n2\n") || !strings.HasSuffix(got, "\n20\n") {
		t.Errorf("head = %q", got)
	}
	if got := tailLines([]byte(b.String())); !strings.HasPrefix(got, "11\n") || !strings.HasSuffix(got, "\n30\n") {
		t.Errorf("tail = %q", got)
	}
	long := strings.Repeat("y", 5000) + "\nend\n"
	if got := tailLines([]byte(long)); got != "end\n" {
		t.Errorf("tail of a long line = %q", got)
	}
	if got := headLines([]byte("ok\xff\n")); got != "ok\uFFFD\n" {
		t.Errorf("invalid UTF-8 head = %q", got)
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{812: "812 B", 5 << 20: "5.0 MB", 1536: "1.5 KB", 1 << 30: "1.0 GB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkSpill measures the spill path's throughput in-process; the 1 GB
// peak-RSS figure comes from BenchmarkSpillRSS, which runs the binary.
func BenchmarkSpill(b *testing.B) {
	const size = 64 << 20
	tmp := b.TempDir()
	b.SetBytes(size)
	for b.Loop() {
		in, err := Read(io.LimitReader(zeroLines{}, size), Options{Args: []string{"x"}, TempDir: tmp})
		if err != nil {
			b.Fatal(err)
		}
		in.Close()
	}
}

// zeroLines yields an endless stream of short lines.
type zeroLines struct{}

func (zeroLines) Read(p []byte) (int, error) {
	for i := range p {
		if i%64 == 63 {
			p[i] = '\n'
		} else {
			p[i] = '0'
		}
	}
	return len(p), nil
}

func FuzzPreviews(f *testing.F) {
	f.Add([]byte("a\nb\n"), 3)
	f.Add([]byte("\xff\xfe no newline"), 1)
	f.Fuzz(func(t *testing.T, data []byte, chunk int) {
		for _, s := range []string{headLines(data), tailLines(data)} {
			if !utf8.ValidString(s) {
				t.Fatalf("preview %q is not valid UTF-8", s)
			}
			if n := strings.Count(s, "\n"); n > previewLines {
				t.Fatalf("preview has %d lines", n)
			}
			if len(s) > 3*previewBytes {
				t.Fatalf("preview has %d bytes", len(s))
			}
		}
		if chunk <= 0 {
			chunk = 1
		}
		st := &spillStats{}
		for off := 0; off < len(data); off += chunk {
			st.Write(data[off:min(off+chunk, len(data))])
		}
		want := data[max(0, len(data)-len(st.ring)):]
		if !bytes.Equal(st.tail(), want) || st.size != int64(len(data)) || st.lines != int64(bytes.Count(data, []byte{'\n'})) {
			t.Fatalf("stats of %d bytes in chunks of %d: size %d lines %d", len(data), chunk, st.size, st.lines)
		}
	})
}

func TestSpillDescribeCountsLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lines int64
		want  string
	}{{1, "(300.0 KB, 1 line)"}, {2, "(300.0 KB, 2 lines)"}, {0, "(300.0 KB, 0 lines)"}} {
		s := &Spill{Path: "/tmp/x/stdin", Size: 300 << 10, Lines: tc.lines}
		if got := s.describe(); !strings.Contains(got, tc.want) {
			t.Errorf("%d lines: description lacks %q:\n%s", tc.lines, tc.want, got)
		}
	}
}

// yesReader is `yes`: "y\n" forever.
type yesReader struct{ odd *bool }

func (y yesReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "y\n"[(i+boolInt(*y.odd))%2]
	}
	*y.odd = (len(p)+boolInt(*y.odd))%2 == 1
	return len(p), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func newYes() io.Reader { return yesReader{odd: new(bool)} }

// TestStdinMax feeds endless input and checks the run stops at the cap
// with a usage error, leaving no spill behind; input within the cap is
// spilled whole.
func TestStdinMax(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      io.Reader
		max     int64
		wantErr string
	}{
		"endless":        {in: newYes(), max: 1 << 20, wantErr: "larger than --stdin-max 1.0 MB"},
		"endless inline": {in: newYes(), max: 100, wantErr: "larger than --stdin-max 100 B"},
		"at the cap":     {in: io.LimitReader(newYes(), 1<<20), max: 1 << 20},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			in, err := Read(tc.in, Options{Args: []string{"hi"}, TempDir: tmp, StdinMax: tc.max, InlineMax: 1 << 10})
			if tc.wantErr == "" {
				if err != nil || in.Spill == nil || in.Spill.Size != 1<<20 {
					t.Fatalf("err %v, spill %+v", err, in)
				}
				in.Close()
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || exit.Code(err) != exit.Usage {
					t.Fatalf("err = %v (exit %d), want a usage error saying %q", err, exit.Code(err), tc.wantErr)
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
		})
	}
}

func TestSpillCapByFreeSpace(t *testing.T) {
	t.Parallel()
	free, ok := freeSpace(t.TempDir())
	if !ok {
		t.Skip("free space unknown here")
	}
	got, byDisk := spillCap(t.TempDir(), 1<<62)
	if !byDisk || got != free-spillMargin(free) && got > free {
		t.Errorf("spillCap = %d (by disk %v), free %d", got, byDisk, free)
	}
	if got, byDisk := spillCap(t.TempDir(), 1<<20); got != 1<<20 || byDisk {
		t.Errorf("a small --stdin-max is kept: %d %v", got, byDisk)
	}
}
