package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Redacted replaces a secret wherever it would reach a cassette.
const Redacted = "[REDACTED]"

// Recorder is an [http.RoundTripper] that passes requests to the real
// transport and writes each exchange to the cassette once its response
// body has been read to the end or closed. Keys never reach the file:
// credential and cookie headers are left out, and every secret given to
// [Create] is replaced by [Redacted] in bodies and header values, also
// where a server echoes it. It is safe for concurrent use.
type Recorder struct {
	next    http.RoundTripper
	secrets []string // longest first

	mu  sync.Mutex
	f   *os.File
	seq int // requests sent
	n   int // exchanges written
	err error
}

// Create starts a cassette at path (truncating it) with header h, sending
// requests through next (nil: [http.DefaultTransport]). secrets are the
// values to redact; empty ones are ignored. Close writes the end line.
func Create(path string, h Header, secrets []string, next http.RoundTripper) (*Recorder, error) {
	if next == nil {
		next = http.DefaultTransport
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	r := &Recorder{next: next, f: f}
	for _, s := range secrets {
		if s != "" && !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	h.Kind, h.Version = KindHeader, Version
	if err := writeLine(f, h); err != nil {
		f.Close()
		return nil, fmt.Errorf("cassette: %w", err)
	}
	return r, nil
}

// RoundTrip sends req through the real transport and records the
// exchange.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if req.Body != nil {
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	r.mu.Lock()
	r.seq++
	e := Exchange{Kind: KindExchange, Seq: r.seq, Method: req.Method, Path: req.URL.Path,
		RequestHeaders: r.headers(req.Header), Request: r.requestJSON(body)}
	r.mu.Unlock()
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		e.Error = r.redact(err.Error())
		r.write(e)
		return nil, err
	}
	e.Status, e.Headers = resp.StatusCode, r.headers(resp.Header)
	resp.Body = &tapBody{rc: resp.Body, done: func(got []byte, readErr error) {
		r.setBody(&e, got)
		if readErr != nil {
			e.BodyError = r.redact(readErr.Error())
		}
		r.write(e)
	}}
	return resp, nil
}

// Close writes the end line and closes the file; it returns the first
// error met while recording.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return r.err
	}
	if err := writeLine(r.f, End{Kind: KindEnd, Exchanges: r.n}); err != nil && r.err == nil {
		r.err = err
	}
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = err
	}
	r.f = nil
	if r.err != nil {
		return fmt.Errorf("cassette: %w", r.err)
	}
	return nil
}

func (r *Recorder) write(e Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil || r.err != nil {
		return
	}
	if err := writeLine(r.f, e); err != nil {
		r.err = err
		return
	}
	r.n++
}

// setBody stores the response bytes, redacted, as text when they are
// UTF-8.
func (r *Recorder) setBody(e *Exchange, got []byte) {
	s := r.redact(string(got))
	if utf8.ValidString(s) {
		e.Body = s
		return
	}
	e.BodyBase64 = []byte(s)
}

// requestJSON is the request body, redacted, as JSON when it is JSON, else
// as a JSON string.
func (r *Recorder) requestJSON(body []byte) json.RawMessage {
	s := r.redact(string(body))
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(s)) == nil {
		return buf.Bytes()
	}
	b, _ := json.Marshal(s)
	return b
}

// headers keeps h without credentials, cookies and secrets.
func (r *Recorder) headers(h http.Header) http.Header {
	out := http.Header{}
	for k, vs := range h {
		if isCredentialHeader(k) {
			continue
		}
		for _, v := range vs {
			out.Add(k, r.redact(v))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (r *Recorder) redact(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, Redacted)
	}
	return s
}

// isCredentialHeader reports whether a header of this name carries a
// credential or a cookie and is left out of a cassette.
func isCredentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"auth", "key", "token", "secret", "cookie", "pass", "signature", "credential", "session"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// tapBody keeps a copy of what is read and calls done once, at the end of
// the body or at Close, with the bytes and the read error (nil at EOF).
type tapBody struct {
	rc   io.ReadCloser
	buf  bytes.Buffer
	done func([]byte, error)
	once sync.Once
}

func (t *tapBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.buf.Write(p[:n])
	if err != nil {
		if errors.Is(err, io.EOF) {
			t.finish(nil)
		} else {
			t.finish(err)
		}
	}
	return n, err
}

// Close reads what is left of the body before closing it: a client stops
// at the stream's end event, and the bytes after it (often none) belong
// to the recording. A read error then (the run was interrupted) is
// recorded as the body's error.
func (t *tapBody) Close() error {
	if _, err := io.Copy(&t.buf, t.rc); err != nil {
		t.finish(fmt.Errorf("%w: %v", errClosedEarly, err))
	}
	t.finish(nil)
	return t.rc.Close()
}

func (t *tapBody) finish(err error) {
	t.once.Do(func() { t.done(t.buf.Bytes(), err) })
}

// errClosedEarly is recorded as the body error of a response the client
// closed before its end (the run was interrupted or stopped reading).
var errClosedEarly = errors.New("closed by the client before the end of the body")

// readBody reads and closes req's body; nil when it has none.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}
