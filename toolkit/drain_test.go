package toolkit

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// chunkReader returns its data in reads of at most n bytes, as a pipe
// hands over what a command wrote, and keeps the largest buffer it was
// given.
type chunkReader struct {
	data []byte
	n    int
	buf  int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	r.buf = max(r.buf, len(p))
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.data)
	r.data = r.data[k:]
	return k, nil
}

// TestDrainOutput: everything read reaches the writer in order, whatever
// the size of the reads; the buffer is 4 KB until a read fills it, then
// 32 KB; a read error comes back.
func TestDrainOutput(t *testing.T) {
	big := []byte(strings.Repeat("0123456789abcdef", 16<<10)) // 256 KB
	for _, tc := range []struct {
		name string
		data []byte
		n    int
		buf  int // the largest buffer read into
	}{
		{"empty", nil, 1, 4 << 10},
		{"small", []byte("hello\n"), 64 << 10, 4 << 10},
		{"exactly the first buffer", big[:4<<10], 4 << 10, 32 << 10},
		{"big, in pipe-sized reads", big, 64 << 10, 32 << 10},
		{"big, one byte at a time", big[:10<<10], 1, 4 << 10},
	} {
		var out bytes.Buffer
		r := &chunkReader{data: tc.data, n: tc.n}
		if err := drainOutput(&out, r); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if r.buf != tc.buf {
			t.Errorf("%s: read into buffers of up to %d bytes, want %d", tc.name, r.buf, tc.buf)
		}
		if !bytes.Equal(out.Bytes(), tc.data) {
			t.Errorf("%s: drained %d bytes, want the %d read", tc.name, out.Len(), len(tc.data))
		}
	}
	if err := drainOutput(io.Discard, iotest.ErrReader(io.ErrUnexpectedEOF)); err != io.ErrUnexpectedEOF {
		t.Errorf("a failing read: %v, want its error", err)
	}
}

// TestDrainSmallOutputAllocates: draining a command that prints little
// (most do) takes a small buffer, not the 32 KB a command that prints
// a lot gets.
func TestDrainSmallOutputAllocates(t *testing.T) {
	const runs = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if err := drainOutput(io.Discard, &chunkReader{data: []byte("ok\n"), n: 64 << 10}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 8<<10 {
		t.Errorf("draining 3 bytes allocates %d bytes, want at most 8 KB", per)
	}
}
