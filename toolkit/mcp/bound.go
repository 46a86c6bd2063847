package mcp

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
)

// boundTransport bounds what a streamable HTTP server's responses may cost
// while they are read, as the model's answers are bounded: a response
// body that is not an SSE stream (JSON, an error page) at max bytes in
// all, an SSE stream at max bytes per event. Past the bound the body's
// Read fails and the overflow is recorded, so that the server's end can
// say why.
type boundTransport struct {
	rt   http.RoundTripper
	max  int64
	over *overflow
}

func (t boundTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	b := &boundBody{rc: resp.Body, max: t.max, over: t.over}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		b.sse = true
	}
	resp.Body = b
	return resp, nil
}

// overflow records the first response that went past the bound. It is
// safe for concurrent use.
type overflow struct {
	mu  sync.Mutex
	err error
}

func (o *overflow) set(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = err
	}
}

// reason is the recorded overflow's text, "" without one.
func (o *overflow) reason() string {
	if o == nil {
		return ""
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		return ""
	}
	return o.err.Error()
}

// take returns the recorded overflow's text and forgets it (a session
// that goes on must not blame a later call on it); "" without one.
func (o *overflow) take() string {
	r := o.reason()
	if r != "" {
		o.mu.Lock()
		o.err = nil
		o.mu.Unlock()
	}
	return r
}

// errTooLarge is the cause of a body cut at the bound.
var errTooLarge = errors.New("mcp: message too large")

// boundBody is a response body that fails once it has given max bytes
// (sse: max bytes since the last event ended, at an empty line).
type boundBody struct {
	rc   io.ReadCloser
	max  int64
	over *overflow
	sse  bool
	n    int64 // bytes of the body (sse: of the current event)
	line int   // sse: bytes of the current line, without \r
	err  error // sticky once past the bound
}

func (b *boundBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if room := b.max - b.n + 1; int64(len(p)) > room {
		p = p[:room] // one byte past the bound tells it is passed
	}
	n, err := b.rc.Read(p)
	if !b.sse {
		b.n += int64(n)
	} else {
		for _, c := range p[:n] {
			switch c {
			case '\n':
				if b.line == 0 {
					b.n = -1 // the empty line ends the event
				}
				b.line = 0
			case '\r':
			default:
				b.line++
			}
			b.n++
		}
	}
	if b.n > b.max {
		what := "answer"
		if b.sse {
			what = "SSE event"
		}
		b.err = fmt.Errorf("%w: the server sent one %s larger than %s, the bound of one message", errTooLarge, what, sizeText(b.max))
		b.over.set(b.err)
		b.rc.Close()
		return 0, b.err
	}
	return n, err
}

func (b *boundBody) Close() error { return b.rc.Close() }

// sizeText writes n bytes as "8 MiB" when it is whole mebibytes, else as
// bytes.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
