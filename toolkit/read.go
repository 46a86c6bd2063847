package toolkit

import (
	"bufio"
	"bytes"
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
    "path":   {"type": "string", "description": "File to read, workspace-relative or absolute inside the workspace."},
    "offset": {"type": "integer", "minimum": 0, "description": "First line to return, 1-based (0 means 1). Default 1."},
    "limit":  {"type": "integer", "minimum": 1, "description": "Number of lines to return. Default 2000."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)

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
	if err := decodeArgs(readSchema, args, &p); err != nil {
		return Effects{}, err
	}
	return t.ws.effectsFor(EffectRead, p.Path)
}

// Run implements [Tool].
func (t *Read) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p readParams
	if err := decodeArgs(readSchema, args, &p); err != nil {
		return errorResult("read: %v", err), nil
	}
	if p.Offset < 0 || p.Limit < 0 {
		return errorResult("read: offset and limit must be positive"), nil
	}
	defaultLimit := p.Limit == 0
	if p.Offset == 0 {
		p.Offset = 1
	}
	if defaultLimit {
		p.Limit = readDefaultLimit
	}
	loc, err := t.ws.resolve(p.Path)
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
	br := bufio.NewReaderSize(io.TeeReader(f, h), 64<<10)
	head, err := br.Peek(binarySniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Result{}, fmt.Errorf("toolkit: read %s: %w", loc.ref.Requested, err)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return errorResult("read: %s is a binary file (%d bytes); read shows text files only", loc.ref.Requested, fi.Size()), nil
	}

	lr := lineReader{br: br}
	var out strings.Builder
	n, first, last := 0, 0, 0
	capped := false
	for {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		line, ok, err := lr.next()
		if err != nil {
			return Result{}, fmt.Errorf("toolkit: read %s: %w", loc.ref.Requested, err)
		}
		if !ok {
			break
		}
		n++
		if n < p.Offset {
			continue
		}
		if n >= p.Offset+p.Limit {
			break
		}
		text := strings.ToValidUTF8(string(trimEOL(line)), "\uFFFD")
		entry := fmt.Sprintf("%6d\t%s\n", n, text)
		if out.Len()+len(entry) > readMaxBytes {
			capped = true
			if first == 0 { // a single line over the cap: show its start
				entry = fmt.Sprintf("%6d\t%s … [line cut at %d KB]\n", n, cutUTF8(text, readMaxBytes-64), readMaxBytes>>10)
				out.WriteString(entry)
				first, last = n, n
			}
			break
		}
		out.WriteString(entry)
		if first == 0 {
			first = n
		}
		last = n
	}
	rest, err := lr.count()
	if err != nil {
		return Result{}, fmt.Errorf("toolkit: read %s: %w", loc.ref.Requested, err)
	}
	total := n + rest // n counts every line consumed, shown or not
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	t.rt.record(loc.key(), sum)

	var res Result
	var b strings.Builder
	switch {
	case total == 0:
		fmt.Fprintf(&b, "File: %s (empty)\n", loc.ref.Requested)
		return Result{Content: b.String()}, nil
	case first == 0:
		return errorResult("read: offset %d is past the end of %s (%d lines)", p.Offset, loc.ref.Requested, total), nil
	case first == 1 && last == total:
		fmt.Fprintf(&b, "File: %s (%d lines)\n", loc.ref.Requested, total)
	default:
		fmt.Fprintf(&b, "File: %s (%d lines; showing %d-%d)\n", loc.ref.Requested, total, first, last)
	}
	b.WriteString(out.String())
	if last < total {
		why := "limit reached"
		if capped {
			why = fmt.Sprintf("output capped at %d KB", readMaxBytes>>10)
			res.Meta.Truncated = true
		} else if defaultLimit {
			why = fmt.Sprintf("default limit of %d lines", readDefaultLimit)
			res.Meta.Truncated = true
		}
		fmt.Fprintf(&b, "[%s: lines %d-%d not shown; read on with offset=%d]\n", why, last+1, total, last+1)
	}
	res.Content = b.String()
	return res, nil
}

// lineReader yields the lines of a reader, then counts the rest quickly.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
}

// next returns the next line with its line ending; ok is false at the end.
func (r *lineReader) next() (line []byte, ok bool, err error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.buf = append(r.buf, chunk...)
		switch {
		case err == nil:
			return r.buf, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return r.buf, len(r.buf) > 0, nil
		default:
			return nil, false, err
		}
	}
}

// count reads to the end and returns how many more lines there are.
func (r *lineReader) count() (int, error) {
	n := 0
	last := byte('\n')
	buf := make([]byte, 256<<10)
	for {
		k, err := r.br.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++ // a final line without a newline
	}
	return n, nil
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
