package toolkit

import (
	"bytes"
	"io"
)

// searchLarge searches a file larger than grepMaxFileSize that the call
// named itself (not one met while walking a directory), in chunks of whole
// lines, so a big file the runner hands over — a spilled stdin — can be
// searched in bounded memory.
func (s *grepSearch) searchLarge(f io.Reader, r *grepFile, buf []byte) []byte {
	return s.searchChunks(f, r, buf, grepMaxFileSize)
}

// searchChunks searches f in chunks of at most size bytes, reusing buf,
// with the same result as searching it whole, except that a line longer
// than a chunk is matched on its first chunk's worth only.
//
// The last context lines of each chunk are carried into the next one (up to
// a quarter of a chunk), so context lines before and after a match reach
// across chunk boundaries: a match found again in the carried lines is
// dropped, but the context after it, now in the new chunk, is kept.
func (s *grepSearch) searchChunks(f io.Reader, r *grepFile, buf []byte, size int) []byte {
	if cap(buf) < size {
		buf = make([]byte, 0, size)
	}
	buf = buf[:0:size]
	limit := s.max + 1
	base := 0     // lines before buf's first line
	emitted := 0  // the last line number in r.hits
	carry := 0    // bytes at the start of buf already searched: whole lines kept for context
	skip := false // the rest of a line longer than a chunk is still to be dropped
	first := true // the binary check is made on the file's first bytes
	for r.matches < limit {
		n, err := io.ReadFull(f, buf[len(buf):cap(buf)])
		fresh := len(buf)
		buf = buf[:len(buf)+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			break
		}
		if skip {
			i := bytes.IndexByte(buf[fresh:], '\n')
			if i < 0 {
				buf = buf[:fresh]
				if eof {
					break
				}
				continue
			}
			buf = buf[:fresh+copy(buf[fresh:], buf[fresh+i+1:])]
			skip = false
		}
		if len(buf) == carry {
			break // nothing new: the end of the file
		}
		if first && containsNUL(buf[:min(len(buf), binarySniffBytes)]) {
			r.binary = true
			break
		}
		first = false
		end, cut := len(buf), false
		if !eof {
			if i := bytes.LastIndexByte(buf[carry:], '\n'); i >= 0 {
				end = carry + i + 1
			} else {
				cut = true // one line fills the rest of the chunk
			}
		}
		emitted = s.addChunkHits(r, buf[:end], base, emitted, limit)
		lines := countNL(buf[:end])
		if end > 0 && buf[end-1] != '\n' {
			lines++ // the file's last line without a newline, or a cut line
		}
		if eof {
			break
		}
		if cut {
			base += lines
			buf, carry, skip = buf[:0], 0, true
			continue
		}
		keep := contextStart(buf[:end], s.context, size/4)
		base += countNL(buf[:keep])
		carry = end - keep
		buf = buf[:copy(buf, buf[keep:])]
	}
	return buf
}

// addChunkHits searches one chunk whose first line is line base+1 and adds
// to r the hits past line emitted, the last one already added (lines
// carried over from the previous chunk come again), up to limit matches in
// all. It returns the new last line added.
func (s *grepSearch) addChunkHits(r *grepFile, chunk []byte, base, emitted, limit int) int {
	// The carried lines may hold up to s.context matches already counted.
	hits, _ := s.m.search(chunk, s.context, limit-r.matches+s.context)
	for _, h := range hits {
		h.num += base
		if h.num <= emitted {
			continue
		}
		if h.match {
			if r.matches == limit {
				break // as a whole search, stop before the match past the limit
			}
			r.matches++
		}
		r.hits = append(r.hits, h)
		emitted = h.num
	}
	return emitted
}

// contextStart returns the offset in chunk, whole lines ending in a
// newline, of its last n lines, or of fewer of them when n would take more
// than maxBytes.
func contextStart(chunk []byte, n, maxBytes int) int {
	start := len(chunk)
	for range n {
		if start == 0 {
			break
		}
		i := bytes.LastIndexByte(chunk[:start-1], '\n') + 1
		if len(chunk)-i > maxBytes {
			break
		}
		start = i
	}
	return start
}
