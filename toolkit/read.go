package toolkit

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

//go:embed read.md
var readDescription string

var readSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path":   {"type": "string", "description": "File to read."},
    "offset": {"type": "integer", "minimum": 0, "description": "First line to return, from 1. Default 1."},
    "limit":  {"type": "integer", "minimum": 1, "description": "Lines to return. Default 2000."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)

// readArgs is readSchema, parsed once.
var readArgs = newArgSchema(readSchema)

// readParams are the arguments of the read tool.
type readParams struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// Read is the read tool: numbered lines of a text file. It is safe for
// concurrent use.
type Read struct {
	ws *Workspace
	rt *ReadTracker
}

// NewRead returns the read tool over ws, recording what it reads in rt.
func NewRead(ws *Workspace, rt *ReadTracker) *Read { return &Read{ws: ws, rt: rt} }

// Spec implements [Tool].
func (t *Read) Spec() Spec {
	return Spec{Name: "read", Description: readDescription, Schema: readSchema}
}

// Effects implements [Tool]: a read of the resolved file.
func (t *Read) Effects(args json.RawMessage) (Effects, error) {
	var p readParams
	if err := decodeArgs(readArgs, args, &p); err != nil {
		return Effects{}, err
	}
	eff, err := t.ws.effectsFor(EffectRead, p.Path)
	eff.Summary = p.Path
	return eff, err
}

// Run implements [Tool].
func (t *Read) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	return t.run(ctx, args, nil)
}

// RunJudged implements [JudgedRunner]: the call acts on the judged path.
func (t *Read) RunJudged(ctx context.Context, args json.RawMessage, eff Effects) (Result, error) {
	return t.run(ctx, args, &eff)
}

func (t *Read) run(ctx context.Context, args json.RawMessage, eff *Effects) (Result, error) {
	var p readParams
	if err := decodeArgs(readArgs, args, &p); err != nil {
		return errorResult("read: %v", err), nil
	}
	// The schema keeps offset ≥ 0 and limit ≥ 1; 0 means not given.
	defaultLimit := p.Limit == 0
	p.Offset, p.Limit = max(p.Offset, 1), cmp.Or(p.Limit, readDefaultLimit)
	loc, err := t.ws.locate(p.Path, eff)
	if err != nil {
		return errorResult("read: %v", err), nil
	}
	if !loc.exists() {
		return errorResult("read: file not found: %s", loc.ref.Requested), nil
	}
	if loc.info.IsDir() {
		return errorResult("read: %s is a directory; use ls to list it", loc.ref.Requested), nil
	}
	f, fi, err := loc.openRegular()
	if err != nil {
		return errorResult("read: %v", err), nil
	}
	defer f.Close()

	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), readBufferSize(fi.Size()))
	head, err := br.Peek(binarySniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Result{}, fmt.Errorf("toolkit: read %s: %w", loc.ref.Requested, err)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return errorResult("read: %s is a binary file (%d bytes); read shows text files only", loc.ref.Requested, fi.Size()), nil
	}
	pg, err := readPage(ctx, br, p.Offset, p.Limit)
	if err != nil {
		return Result{}, fmt.Errorf("toolkit: read %s: %w", loc.ref.Requested, err)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	t.rt.record(loc.key(), sum)
	return pg.result(loc.ref.Requested, p.Offset, defaultLimit), nil
}

// page is the numbered lines one read call shows.
type page struct {
	lines       strings.Builder // numbered lines
	first, last int             // the line numbers shown; 0 when none
	total       int             // lines in the file
	capped      bool            // the byte cap stopped the page
}

// readPage reads br to the end, numbering up to limit lines from line
// offset into a page of at most readMaxBytes, and counts every line.
func readPage(ctx context.Context, br *bufio.Reader, offset, limit int) (*page, error) {
	pg := &page{}
	// A line longer than a page is cut anyway; keeping one byte more than
	// the page makes it take the "line cut" path as the whole line would.
	lr := lineReader{br: br, max: readMaxBytes + 1}
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		n++
		if n < offset {
			continue
		}
		if n >= offset+limit {
			break
		}
		text := strings.ToValidUTF8(string(trimEOL(line)), "\uFFFD")
		entry := fmt.Sprintf("%6d\t%s\n", n, text)
		if pg.lines.Len()+len(entry) > readMaxBytes {
			pg.capped = true
			if pg.first == 0 { // a single line over the cap: show its start
				fmt.Fprintf(&pg.lines, "%6d\t%s … [line cut at %d KB]\n", n, cutUTF8(text, readMaxBytes-64), readMaxBytes>>10)
				pg.first, pg.last = n, n
			}
			break
		}
		pg.lines.WriteString(entry)
		if pg.first == 0 {
			pg.first = n
		}
		pg.last = n
	}
	rest, err := lr.count()
	if err != nil {
		return nil, err
	}
	pg.total = n + rest // n counts every line consumed, shown or not
	return pg, nil
}

// result formats the page of the file name: a header with the total, the
// lines, and a notice of how to read on when lines were left out.
func (pg *page) result(name string, offset int, defaultLimit bool) Result {
	var res Result
	var b strings.Builder
	switch {
	case pg.total == 0:
		return Result{Content: fmt.Sprintf("File: %s (empty)\n", name)}
	case pg.first == 0:
		return errorResult("read: offset %d is past the end of %s (%d lines)", offset, name, pg.total)
	case pg.first == 1 && pg.last == pg.total:
		fmt.Fprintf(&b, "File: %s (%d lines)\n", name, pg.total)
	default:
		fmt.Fprintf(&b, "File: %s (%d lines; showing %d-%d)\n", name, pg.total, pg.first, pg.last)
	}
	b.WriteString(pg.lines.String())
	if pg.last < pg.total {
		why := "limit reached"
		if pg.capped {
			why = fmt.Sprintf("output capped at %d KB", readMaxBytes>>10)
			res.Meta.Truncated = true
		} else if defaultLimit {
			why = fmt.Sprintf("default limit of %d lines", readDefaultLimit)
			res.Meta.Truncated = true
		}
		fmt.Fprintf(&b, "[%s: lines %d-%d not shown; read on with offset=%d]\n", why, pg.last+1, pg.total, pg.last+1)
	}
	res.Content = b.String()
	return res
}

// lineReader yields the lines of a reader, then counts the rest quickly.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	// max, when positive, is the most bytes of one line kept: the rest of
	// a longer line is consumed and dropped (with its line ending), so a
	// file of one huge line is read in bounded memory.
	max int
}

// next returns the next line with its line ending (a line longer than max
// comes back as its first max bytes); ok is false at the end.
func (r *lineReader) next() (line []byte, ok bool, err error) {
	r.buf = r.buf[:0]
	seen := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		seen = seen || len(chunk) > 0
		if r.max <= 0 {
			r.buf = append(r.buf, chunk...)
		} else if room := r.max - len(r.buf); room > 0 {
			r.buf = append(r.buf, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == nil:
			return r.buf, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return r.buf, seen, nil
		default:
			return nil, false, err
		}
	}
}

// count reads to the end and returns how many more lines there are.
func (r *lineReader) count() (int, error) {
	c := lineCounter{last: '\n'}
	// Through the reader's own buffer: no buffer of its own per call.
	if _, err := r.br.WriteTo(&c); err != nil {
		return 0, err
	}
	if c.last != '\n' {
		c.n++ // a final line without a newline
	}
	return c.n, nil
}

// lineCounter counts the newlines written to it and keeps the last byte.
type lineCounter struct {
	n    int
	last byte
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.n += bytes.Count(p, []byte{'\n'})
		c.last = p[len(p)-1]
	}
	return len(p), nil
}

// readBufferSize is the buffer read takes for a file of size bytes: 64 KB,
// or less for a smaller file (one more byte than the file, so that one
// read meets its end), but never less than the binary sniff needs. Each
// call has its own: 64 KB for a file of a few lines was most of what a
// read allocated.
func readBufferSize(size int64) int {
	return int(min(max(size+1, binarySniffBytes), 64<<10))
}

// trimEOL drops a trailing "\n" or "\r\n".
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// cutUTF8 returns at most n bytes of s, not splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
