package toolkit

import (
	"bytes"
	"io"
)

// searchLarge searches a file larger than grepMaxFileSize that the call
// named itself (not one met while walking a directory), in chunks of whole
// lines, so a big file the runner hands over — a spilled stdin — can be
// searched in bounded memory. Context lines do not reach across chunk
// boundaries.
func (s *grepSearch) searchLarge(f io.Reader, r *grepFile, buf []byte) []byte {
	if cap(buf) < grepMaxFileSize {
		buf = make([]byte, 0, grepMaxFileSize)
	}
	buf = buf[:0]
	limit := s.max + 1
	before := 0 // lines in the chunks already searched
	for first := true; r.matches < limit; first = false {
		n, err := io.ReadFull(f, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if (err != nil && !eof) || len(buf) == 0 {
			break
		}
		if first && containsNUL(buf[:min(len(buf), binarySniffBytes)]) {
			r.binary = true
			break
		}
		end := len(buf)
		if i := bytes.LastIndexByte(buf, '\n'); !eof && i >= 0 {
			end = i + 1
		}
		hits, matches := s.m.search(buf[:end], s.context, limit-r.matches)
		for _, h := range hits {
			h.num += before
			r.hits = append(r.hits, h)
		}
		r.matches += matches
		before += countNL(buf[:end])
		if end < len(buf) && buf[end-1] != '\n' {
			before++ // a line longer than the chunk was cut
		}
		buf = buf[:copy(buf, buf[end:])]
	}
	return buf
}
