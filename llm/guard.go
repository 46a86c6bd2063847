package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Defaults of [StreamLimits].
const (
	// DefaultMaxResponseBytes caps the text, thinking and tool input kept
	// from one answer: far above any real answer (a 64,000-token output is
	// about 256 KB), far below what would exhaust a CI runner's memory.
	DefaultMaxResponseBytes = 32 << 20
	// DefaultIdleTimeout is how long an attempt may go without progress.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultHeaderTimeout is how long an attempt may wait for the
	// response headers: servers send them as soon as they take the
	// request (the answer follows in the body), so a minute of silence is
	// a server that will not answer, not a slow model.
	DefaultHeaderTimeout = time.Minute
)

// StreamLimits bounds what one model answer may cost the client, whatever
// the server does.
type StreamLimits struct {
	// MaxResponseBytes caps the text, thinking, signatures and tool input
	// kept from one answer. Past it the stream fails with a [KindProtocol]
	// error that is not retryable: the same request would get the same
	// answer. 0 means [DefaultMaxResponseBytes]; negative means no cap.
	MaxResponseBytes int64
	// IdleTimeout is how long an attempt may wait for the next event of
	// the body (the first one included), and for the response headers
	// when HeaderTimeout is unset and the idle timeout is the shorter, or
	// when HeaderTimeout is turned off. Anthropic's ping events
	// keep the connection open but are not progress. A stall ends the
	// attempt with a retryable [KindStreamCut] error. 0 means
	// [DefaultIdleTimeout]; negative means none.
	IdleTimeout time.Duration
	// HeaderTimeout is how long an attempt may wait for the response
	// headers; past it the attempt ends with a retryable [KindNetwork]
	// error. When set it alone bounds that wait; 0 means
	// [DefaultHeaderTimeout] or the idle timeout, the shorter; negative
	// means none (the idle timeout alone bounds the wait).
	HeaderTimeout time.Duration
}

// headerWait is how long an attempt waits for the response headers: a
// header timeout that is set, alone; unset, the shorter of
// [DefaultHeaderTimeout] and the idle timeout; turned off, the idle
// timeout; 0 for no limit.
func (l StreamLimits) headerWait() time.Duration {
	switch h, i := l.HeaderTimeout, l.idle(); {
	case h > 0:
		return h
	case h < 0:
		return i
	case i > 0:
		return min(DefaultHeaderTimeout, i)
	default:
		return DefaultHeaderTimeout
	}
}

func (l StreamLimits) maxBytes() int64 {
	switch {
	case l.MaxResponseBytes == 0:
		return DefaultMaxResponseBytes
	case l.MaxResponseBytes < 0:
		return 0
	}
	return l.MaxResponseBytes
}

func (l StreamLimits) idle() time.Duration {
	switch {
	case l.IdleTimeout == 0:
		return DefaultIdleTimeout
	case l.IdleTimeout < 0:
		return 0
	}
	return l.IdleTimeout
}

// guard applies limits to t and replaces its HTTP client by a copy that
// follows only same-origin redirects: the key header must never reach
// another host, another port or a plain-http URL. A CheckRedirect of the
// caller's client is replaced.
func (t *transport) guard(limits StreamLimits) {
	t.limits = limits
	hc := *t.hc
	hc.CheckRedirect = sameOriginRedirect
	t.hc = &hc
}

// maxRedirects is how many same-origin redirects one request may follow.
const maxRedirects = 5

// sameOriginRedirect is an [http.Client] CheckRedirect that refuses a
// redirect to another scheme, host or port.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	if req.URL.Scheme != from.Scheme || !strings.EqualFold(req.URL.Host, from.Host) {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return &redirectError{status: status, target: req.URL.Scheme + "://" + req.URL.Host}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// redirectError is a redirect refused because it leaves the origin.
// target is the scheme and host only: never a path, query or user info.
type redirectError struct {
	status int
	target string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("refused a redirect to %s, another origin than the base URL (the key is not sent there)", e.target)
}

// redirectAPIError returns the [*APIError] for a refused redirect in err,
// or nil.
func redirectAPIError(provider string, err error) *APIError {
	var re *redirectError
	if !errors.As(err, &re) {
		return nil
	}
	return &APIError{Provider: provider, Kind: KindProtocol, StatusCode: re.status, Message: re.Error(), Retryable: false}
}

// stallError is the cancellation cause of an attempt that went idle.
type stallError struct {
	d       time.Duration
	headers bool // the response headers had arrived
}

func (e *stallError) Error() string {
	if !e.headers {
		return fmt.Sprintf("stalled: no response headers within %v", e.d)
	}
	return fmt.Sprintf("stalled: no data for %v", e.d)
}

// apiError returns the retryable error of the stall.
func (e *stallError) apiError(provider string) *APIError {
	kind := KindStreamCut
	if !e.headers {
		kind = KindNetwork
	}
	return &APIError{Provider: provider, Kind: kind, Message: e.Error(), Retryable: true, Err: e}
}

// idleWatch cancels one attempt's request when it makes no progress for d.
// The timer runs only while the client waits on the server (for headers,
// then inside each read of the next event), so a slow consumer is never
// taken for a stalled server; a read that returns only a ping does not
// restart the wait. Not safe for concurrent use, apart from the timer.
type idleWatch struct {
	ctx    context.Context // the attempt's request context
	cancel context.CancelCauseFunc
	d      time.Duration
	timer  *time.Timer // nil when there is no idle timeout
	cause  *stallError
	since  time.Time // when the current wait for progress began
	fresh  bool      // the last read made progress: the next wait starts anew
}

// newIdleWatch starts watching the wait for the response headers, which
// may last header; then each wait for progress in the body may last d.
// 0 is no limit.
func newIdleWatch(parent context.Context, header, d time.Duration) *idleWatch {
	ctx, cancel := context.WithCancelCause(parent)
	w := &idleWatch{ctx: ctx, cancel: cancel, d: d, cause: &stallError{d: header}, since: time.Now()}
	if header > 0 || d > 0 {
		cause := w.cause
		w.timer = time.AfterFunc(time.Hour, func() { cancel(cause) })
		w.timer.Stop()
		if header > 0 {
			w.timer.Reset(header)
		}
	}
	return w
}

// headers stops the wait for headers; reads of the body follow.
func (w *idleWatch) headers() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.fresh = true
	w.cause.headers, w.cause.d = true, w.d
}

// wait arms the timer for a read from the body.
func (w *idleWatch) wait() {
	if w == nil || w.timer == nil || w.d <= 0 {
		return
	}
	now := time.Now()
	if w.fresh {
		w.since, w.fresh = now, false
	}
	w.timer.Reset(w.since.Add(w.d).Sub(now))
}

// read stops the timer after a read; progress says it brought an event
// other than a ping.
func (w *idleWatch) read(progress bool) {
	if w == nil || w.timer == nil {
		return
	}
	w.timer.Stop()
	if progress {
		w.fresh = true
	}
}

// stalled returns the stall that cancelled the attempt, or nil.
func (w *idleWatch) stalled() *stallError {
	if w == nil {
		return nil
	}
	var se *stallError
	if errors.As(context.Cause(w.ctx), &se) {
		return se
	}
	return nil
}

// close stops the watch and releases the attempt's context.
func (w *idleWatch) close() {
	if w == nil {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel(context.Canceled)
}
