package query

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/rubichan/rubichan/run/exit"
)

// splitJobs cuts q.Split into chunks of at most q.Chunk bytes that end at
// a line boundary (a line longer than a chunk is cut where the chunk
// ends), each starting at the first line start at or after q.Overlap
// bytes before the previous one's end. Only the bytes around the cuts
// are read; the requests carry byte ranges, which the run reads.
func splitJobs(q Options) func(func(queryJob) bool) error {
	return func(yield func(queryJob) bool) error {
		f, err := os.Open(q.Split)
		if err != nil {
			return exit.Usagef("--split: %v", err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return exit.Usagef("--split: %s is not a regular file", q.Split)
		}
		return chunkRanges(f, fi.Size(), q.Chunk, q.Overlap, func(off, n int64) bool {
			req := q.request()
			req.File, req.Offset, req.Length = q.Split, off, n
			return yield(queryJob{req: req, offset: off, length: n})
		})
	}
}

// scanBlock is how much of the file is read at a time around a cut.
const scanBlock = 64 << 10

// chunkRanges calls emit with the byte range of every chunk of the size
// bytes of r (see splitJobs) until it returns false.
func chunkRanges(r io.ReaderAt, size, chunk, overlap int64, emit func(off, n int64) bool) error {
	buf := make([]byte, scanBlock)
	for start := int64(0); start < size; {
		end := min(start+chunk, size)
		if end < size {
			cut, err := lastLineEnd(r, buf, start, end)
			if err != nil {
				return fmt.Errorf("--split: read: %w", err)
			}
			if cut > start {
				end = cut
			}
		}
		if !emit(start, end-start) {
			return nil
		}
		if end >= size {
			return nil
		}
		next := end
		if overlap > 0 {
			s, err := firstLineStart(r, buf, max(end-overlap, start+1), end)
			if err != nil {
				return fmt.Errorf("--split: read: %w", err)
			}
			next = s
		}
		start = next
	}
	return nil
}

// lastLineEnd returns the offset just after the last newline in
// [from, to), or from when there is none.
func lastLineEnd(r io.ReaderAt, buf []byte, from, to int64) (int64, error) {
	for hi := to; hi > from; {
		lo := max(hi-int64(len(buf)), from)
		b := buf[:hi-lo]
		if _, err := r.ReadAt(b, lo); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return from, nil
}

// firstLineStart returns the offset just after the first newline in
// [from, to), or to when there is none.
func firstLineStart(r io.ReaderAt, buf []byte, from, to int64) (int64, error) {
	for lo := from; lo < to; {
		hi := min(lo+int64(len(buf)), to)
		b := buf[:hi-lo]
		if _, err := r.ReadAt(b, lo); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		lo = hi
	}
	return to, nil
}
