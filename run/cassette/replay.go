package cassette

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Mode says how closely a replayed request must match the recorded one.
type Mode string

// Strict compares whole request bodies except their volatile parts;
// Lenient compares only the message count and the tool names.
const (
	Strict  Mode = "strict"
	Lenient Mode = "lenient"
)

// ParseMode returns the mode named s ("" is [Strict]).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Strict:
		return Strict, nil
	case Lenient:
		return Lenient, nil
	}
	return "", fmt.Errorf("replay mode must be strict or lenient, not %q", s)
}

// Replayer is an [http.RoundTripper] that answers each request with the
// next recorded exchange, after checking that the request matches the
// recorded one. It never touches the network. It is safe for concurrent
// use; requests are matched in the order they arrive.
type Replayer struct {
	c    *Cassette
	mode Mode
	live Volatile

	mu   sync.Mutex
	next int
	err  error // the divergence that stopped the replay
}

// Replayer returns a transport serving c in mode; live are the volatile
// values of this run (its workspace, date and platform), set aside like
// the recorded ones.
func (c *Cassette) Replayer(mode Mode, live Volatile) *Replayer {
	return &Replayer{c: c, mode: mode, live: live}
}

// Remaining is the number of recorded exchanges not yet served.
func (r *Replayer) Remaining() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.c.Exchanges) - r.next
}

// RoundTrip serves the next exchange, or returns a [*DivergenceError]
// when req is not the request recorded there (and for every request
// after).
func (r *Replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	n := r.next + 1
	if r.next >= len(r.c.Exchanges) {
		r.err = &DivergenceError{Request: n, Msg: fmt.Sprintf("the cassette has only %d requests", len(r.c.Exchanges))}
		return nil, r.err
	}
	e := r.c.Exchanges[r.next]
	if d := r.check(n, e, req, body); d != nil {
		r.err = d
		return nil, d
	}
	r.next++
	if e.Error != "" {
		return nil, errors.New(e.Error)
	}
	return response(req, e), nil
}

// check compares req with the recorded exchange e.
func (r *Replayer) check(n int, e Exchange, req *http.Request, body []byte) *DivergenceError {
	if req.Method != e.Method || req.URL.Path != e.Path {
		return &DivergenceError{Request: n, Msg: fmt.Sprintf("%s %s was sent, the cassette has %s %s", req.Method, req.URL.Path, e.Method, e.Path)}
	}
	d, err := Compare(r.mode, e.Request, r.c.Header.Volatile, body, r.live)
	if err != nil {
		return &DivergenceError{Request: n, Msg: err.Error()}
	}
	if d != nil {
		d.Request = n
		return d
	}
	return nil
}

// response builds the recorded response for req.
func response(req *http.Request, e Exchange) *http.Response {
	raw := []byte(e.Body)
	if e.BodyBase64 != nil {
		raw = e.BodyBase64
	}
	var readErr error
	if e.BodyError != "" {
		readErr = errors.New(e.BodyError)
	}
	h := e.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status)),
		StatusCode:    e.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          &replayBody{ctx: req.Context(), r: bytes.NewReader(raw), err: readErr},
		ContentLength: -1,
		Request:       req,
	}
}

// replayBody serves the recorded bytes, then the recorded read error (or
// EOF), or the request context's error once it ends.
type replayBody struct {
	ctx context.Context
	r   *bytes.Reader
	err error
}

func (b *replayBody) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := b.r.Read(p)
	if errors.Is(err, io.EOF) && b.err != nil {
		return n, b.err
	}
	return n, err
}

func (b *replayBody) Close() error { return nil }

// DivergenceError says that a replayed run sent a request the cassette
// does not have: Request is its number (from 1); Path the JSON path of the
// first difference in its body ("" when the difference is not in the
// body).
type DivergenceError struct {
	Request  int
	Path     string
	Recorded string // the recorded value there, shortened
	Got      string // the value sent, shortened
	Msg      string // set when the difference is not one value
}

// Permanent reports that a divergence is never cured by a retry: the run
// is not the recorded one. (The engine's agent.Permanent, declared there;
// this package does not import it.)
func (e *DivergenceError) Permanent() bool { return true }

func (e *DivergenceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay: request %d differs from the cassette", e.Request)
	if e.Path != "" {
		fmt.Fprintf(&b, " at %s", e.Path)
	}
	if e.Msg != "" {
		b.WriteString(": " + e.Msg)
		return b.String()
	}
	fmt.Fprintf(&b, ": recorded %s, got %s", e.Recorded, e.Got)
	return b.String()
}

// Clock is a retry clock that does not wait: Sleep returns at once and
// moves Now forward by the time it would have slept, so a recorded 429
// replays as a retry with its notice and no real wait. It implements
// llm.Clock. It is safe for concurrent use.
type Clock struct {
	mu      sync.Mutex
	skipped time.Duration
}

// Now is the wall clock plus the time skipped so far.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.skipped)
}

// Sleep skips d; it returns the cause of ctx when ctx has ended.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	c.mu.Lock()
	c.skipped += d
	c.mu.Unlock()
	return nil
}
