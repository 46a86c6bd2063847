package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxErrorBody is how much of an error response body is read.
const maxErrorBody = 64 << 10

// transport is the HTTP side both clients share: where to post, with which
// headers, and how to turn the answer into a [*Stream] or an [*APIError].
// It is immutable after construction and safe for concurrent use.
type transport struct {
	provider string
	url      string
	shownURL string // url without credentials, for errors
	hc       *http.Client
	header   http.Header // cloned for every request
	redact   func(string) string
	clock    Clock
	limits   StreamLimits // see [transport.guard]
	keyVar   string       // the variable the key came from, for auth errors
}

// transportOptions say where and how a transport posts.
type transportOptions struct {
	Provider string       // names the provider in errors
	Base     string       // base URL; trailing slashes are removed
	Path     string       // appended to Base
	Client   *http.Client // nil means a new default client
	Clock    Clock        // nil means [SystemClock]
	// Extra headers come first, so the protocol's own Fixed headers, set
	// after them, win.
	Extra, Fixed map[string]string
	// Key, when not empty, is sent as the header KeyHeader with KeyPrefix
	// before it.
	KeyHeader, KeyPrefix, Key string
	// KeyVar names the variable Key came from, for an auth error's hint.
	KeyVar string
	// Limits bound an answer and an attempt (see [transport.guard]).
	Limits StreamLimits
}

// newTransport returns a transport posting to o.Base + o.Path.
func newTransport(o transportOptions) transport {
	hc := o.Client
	if hc == nil {
		hc = &http.Client{}
	}
	clk := o.Clock
	if clk == nil {
		clk = SystemClock()
	}
	h := make(http.Header, len(o.Extra)+len(o.Fixed)+3)
	for k, v := range o.Extra {
		h.Set(k, v)
	}
	h.Set("content-type", "application/json")
	h.Set("accept", "text/event-stream")
	for k, v := range o.Fixed {
		h.Set(k, v)
	}
	if o.Key != "" {
		h.Set(o.KeyHeader, o.KeyPrefix+o.Key)
	}
	u := strings.TrimRight(o.Base, "/") + o.Path
	t := transport{provider: o.Provider, url: u, shownURL: withoutCredentials(u), hc: hc, header: h, redact: redactor(o.Key), clock: clk, keyVar: o.KeyVar}
	t.guard(o.Limits)
	return t
}

// withoutCredentials returns the URL without user info, query and
// fragment, which may carry keys.
func withoutCredentials(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// stream posts body and returns the answer's event stream read by dec.
// The attempt is watched for stalls (see [StreamLimits.HeaderTimeout] and
// [StreamLimits.IdleTimeout]) and
// what the stream keeps is capped (see [StreamLimits.MaxResponseBytes]).
func (t *transport) stream(ctx context.Context, body []byte, dec decoder) (*Stream, error) {
	w := newIdleWatch(ctx, t.limits.headerWait(), t.limits.idle())
	resp, err := t.post(w.ctx, body)
	if err != nil {
		stall := w.stalled()
		w.close()
		if stall != nil && ctx.Err() == nil {
			return nil, stall.apiError(t.provider)
		}
		return nil, err
	}
	w.headers()
	s := newStream(t.provider, resp.Body, dec, t.redact)
	s.idle = w
	s.acc.limit = t.limits.maxBytes()
	return s, nil
}

// post sends body as JSON and returns the response of a successful (2xx)
// request. An error status becomes a classified [*APIError]; a transport
// failure becomes a [KindNetwork] error, unless ctx ended.
func (t *transport) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: build request: %w", t.provider, err)
	}
	req.Header = t.header.Clone()
	resp, err := t.hc.Do(req)
	if err != nil {
		if e := redirectAPIError(t.provider, err); e != nil {
			return nil, e
		}
		if ctx.Err() != nil || isContextErr(err) {
			return nil, fmt.Errorf("%s: send request: %w", t.provider, context.Cause(ctx))
		}
		return nil, &APIError{Provider: t.provider, Kind: KindNetwork, Message: t.redact(err.Error()), Retryable: true, Err: err}
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e := statusError(t.provider, resp, raw, t.redact, t.clock.Now())
		switch {
		case e.Kind == KindAuth:
			e.KeyVar = t.keyVar
		case isModelNotFound(e):
			e.Model = requestModel(body)
		case e.Kind == KindNotFound:
			e.URL = t.shownURL
		}
		return nil, e
	}
	if ct := resp.Header.Get("content-type"); strings.HasPrefix(ct, "application/json") {
		// Some gateways answer an error, or a server that ignores
		// "stream": true answers the whole completion, as plain JSON.
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, jsonInsteadOfStream(t.provider, resp, raw, t.redact)
	}
	return resp, nil
}

// jsonInsteadOfStream builds the error for a 2xx answer that is JSON
// rather than an event stream: the error it carries, or a protocol error.
func jsonInsteadOfStream(provider string, resp *http.Response, raw []byte, redact func(string) string) *APIError {
	if typ, msg := parseErrorBody(raw); msg != "" {
		kind, retry := classifyStatus(0, typ, msg)
		return &APIError{Provider: provider, Kind: kind, Type: typ, Message: redact(msg), Retryable: retry,
			RequestID: firstHeader(resp.Header, "request-id", "x-request-id")}
	}
	return &APIError{Provider: provider, Kind: KindProtocol, Retryable: false,
		Message: "expected an event stream, got application/json (does the endpoint support streaming?)"}
}

// statusError builds the error for a non-2xx response with body raw; now
// is the time a retry-after date is measured from.
func statusError(provider string, resp *http.Response, raw []byte, redact func(string) string, now time.Time) *APIError {
	typ, msg := parseErrorBody(raw)
	if msg == "" {
		msg = strings.TrimSpace(string(raw))
		if len(msg) > 512 {
			msg = msg[:512] + "…"
		}
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
	}
	kind, retry := classifyStatus(resp.StatusCode, typ, msg)
	return &APIError{
		Provider:   provider,
		Kind:       kind,
		StatusCode: resp.StatusCode,
		Type:       typ,
		Message:    redact(msg),
		RequestID:  firstHeader(resp.Header, "request-id", "x-request-id"),
		RetryAfter: retryAfter(resp.Header, now),
		Retryable:  retry,
	}
}

// wireError is the error object of both protocols: Anthropic's
// {"type":"error","error":{"type","message"}} and OpenAI's
// {"error":{"message","type","code"}}, where some servers send a numeric
// code (OpenRouter) or the error as a bare string.
type wireError struct {
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// parseErrorBody extracts the error type (or code) and message of an error
// response body; both are empty when it is not a known shape.
func parseErrorBody(raw []byte) (typ, msg string) {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return "", ""
	}
	var we wireError
	if json.Unmarshal(body.Error, &we) == nil {
		return we.kind(), we.Message
	}
	var s string
	if json.Unmarshal(body.Error, &s) == nil {
		return "", s
	}
	return "", body.Message
}

// kind returns the error's code when it is a string, else its type. For
// OpenAI the code is the precise one (insufficient_quota,
// context_length_exceeded) while the type is broad.
func (we wireError) kind() string {
	var code string
	if json.Unmarshal(we.Code, &code) == nil && code != "" {
		return code
	}
	return we.Type
}

// retryAfter reads retry-after-ms (milliseconds) or retry-after (seconds or
// an HTTP date) from h.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// redactor returns a function that removes key from messages. Short keys
// (tests, local servers) are left alone to avoid mangling ordinary words.
func redactor(key string) func(string) string {
	if len(key) < 8 {
		return func(s string) string { return s }
	}
	return func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }
}

// isJSONObject reports whether raw is a valid JSON object.
func isJSONObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

// marshal encodes v as JSON without HTML escaping: a request body is no
// web page, and `<`, `>` and `&`, common in code, would take six bytes
// each (\u003c) on every turn.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// requestModel is the model a request body asks for, "" when it names none.
func requestModel(body []byte) string {
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &req)
	return req.Model
}
