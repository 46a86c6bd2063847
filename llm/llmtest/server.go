package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Request is one request the server received.
type Request struct {
	Method string      `json:"method"`
	Path   string      `json:"path"`
	Header http.Header `json:"headers"`
	Body   []byte      `json:"-"`
}

// JSON decodes the request body into v.
func (r Request) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// MarshalJSON writes the request with its body as JSON when it is valid
// JSON, else as a string.
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request
	var body any = string(r.Body)
	if json.Valid(r.Body) {
		body = json.RawMessage(r.Body)
	}
	return json.Marshal(struct {
		plain
		Body any `json:"body"`
	}{plain(r), body})
}

// Server is a scripted model server. Its methods are safe for concurrent
// use; requests are answered one turn each, in arrival order.
type Server struct {
	srv    *httptest.Server
	script Script

	mu    sync.Mutex
	reqs  []Request
	turns int // turns handed out
	dir   string
	// forget keeps requests without their bodies (benchmarks that send
	// gigabytes).
	forget bool
	// lean answers without checking the requests (see Lean).
	lean bool
	// bodies are the buffers a lean server reads requests into.
	bodies sync.Pool
}

// ForgetBodies makes the server keep the requests it receives from now
// on without their bodies, so that a benchmark sending gigabytes does not
// hold them.
func (s *Server) ForgetBodies() {
	s.mu.Lock()
	s.forget = true
	s.mu.Unlock()
}

// Lean makes the server answer from now on without checking the requests
// against the provider's rules, reading of each only what its answer
// echoes (see params), and keep them without their bodies: for
// the benchmarks that time the client per request, where the checks —
// decoding every request several times, a growing conversation each turn
// — would be the server's time counted as the client's.
func (s *Server) Lean() {
	s.mu.Lock()
	s.forget, s.lean = true, true
	s.mu.Unlock()
}

// NewServer starts a server on 127.0.0.1 answering from script. The
// caller must Close it.
func NewServer(script Script) *Server {
	s := &Server{script: script, bodies: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL returns the server's base URL, http://127.0.0.1:port. Use it as the
// Anthropic base URL, and it or URL()+"/v1" as the OpenAI base URL.
func (s *Server) URL() string { return s.srv.URL }

// Close shuts the server down, cutting any stream still running.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		r.Header = r.Header.Clone()
		r.Body = append([]byte(nil), r.Body...)
		out[i] = r
	}
	return out
}

// RecordTo makes the server write every request it receives from now on
// to dir as request-NNN.json (NNN counting all requests from 001). It
// creates dir if needed.
func (s *Server) RecordTo(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("llmtest: record requests: %w", err)
	}
	s.mu.Lock()
	s.dir = dir
	s.mu.Unlock()
	return nil
}

// record stores r and returns its number, from 1, and the directory to
// write it to.
func (s *Server) record(r Request) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forget {
		r.Body = nil
	}
	s.reqs = append(s.reqs, r)
	return len(s.reqs), s.dir
}

// nextTurn hands out the next turn number, from 1.
func (s *Server) nextTurn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns++
	return s.turns
}

func writeRequest(dir string, n int, r Request) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	name := filepath.Join(dir, fmt.Sprintf("request-%03d.json", n))
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// protocol is the wire format a path speaks.
type protocol int

const (
	anthropic protocol = iota + 1
	openai
	responses
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, release, err := s.readBody(r)
	defer release()
	if err != nil {
		http.Error(w, "llmtest: read request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	n, dir := s.record(Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	if dir != "" {
		if err := writeRequest(dir, n, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header, Body: body}); err != nil {
			writeError(w, anthropic, http.StatusInternalServerError, "api_error", "llmtest: write request: "+err.Error())
			return
		}
	}
	var proto protocol
	switch p := r.URL.Path; {
	case strings.HasSuffix(p, "/v1/messages"):
		proto = anthropic
	case strings.HasSuffix(p, "/chat/completions"):
		proto = openai
	case strings.HasSuffix(p, "/responses"):
		proto = responses
	default:
		writeError(w, openai, http.StatusNotFound, "not_found_error", "llmtest: no such endpoint "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, proto, http.StatusMethodNotAllowed, "invalid_request_error", "llmtest: want POST, got "+r.Method)
		return
	}
	if msg := s.check(proto, body); msg != "" {
		writeError(w, proto, http.StatusBadRequest, "invalid_request_error", "llmtest: request "+strconv.Itoa(n)+": "+msg)
		return
	}
	tokens := 0
	if win := s.script.ContextWindow; win > 0 {
		tokens = RequestTokens(body)
		if tokens > win {
			writeContextLength(w, proto, tokens, s.script.ContextWindow)
			return
		}
	}
	if a, ok := s.answerFor(body); ok {
		s.stream(w, r, proto, body, withInput(a, tokens), n)
		return
	}
	if s.script.Summary != nil && !offersTools(body) {
		s.stream(w, r, proto, body, withInput(*s.script.Summary, tokens), n)
		return
	}
	ti := s.nextTurn()
	if ti > len(s.script.Turns) {
		writeError(w, proto, http.StatusInternalServerError, "api_error",
			fmt.Sprintf("llmtest: request %d asks for turn %d but the script has %d", n, ti, len(s.script.Turns)))
		return
	}
	turn := s.script.Turns[ti-1]
	if f := turn.Fault; f != nil && f.Status != 0 {
		writeStatusFault(w, proto, f)
		return
	}
	if f := turn.Fault; f != nil && f.Silent {
		silent(r)
		return
	}
	s.stream(w, r, proto, body, withInput(turn, tokens), ti)
}

// readBody reads r's body. A lean server reads it into a buffer it reuses
// once release is called (it keeps no body): reading each growing
// conversation into a new slice, grown by doubling, was most of its own
// time per request after the answer's writes.
func (s *Server) readBody(r *http.Request) (body []byte, release func(), err error) {
	if !s.isLean() {
		body, err = io.ReadAll(r.Body)
		return body, func() {}, err
	}
	buf := s.bodies.Get().(*bytes.Buffer)
	buf.Reset()
	_, err = buf.ReadFrom(r.Body)
	return buf.Bytes(), func() { s.bodies.Put(buf) }, err
}

// isLean reports whether [Server.Lean] was called.
func (s *Server) isLean() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lean
}

// check is [checkRequest], or nothing on a lean server.
func (s *Server) check(proto protocol, body []byte) string {
	if s.isLean() {
		return ""
	}
	return checkRequest(proto, body)
}

// silent holds a request without answering it until the client leaves or
// a minute passes.
func silent(r *http.Request) {
	limit := time.NewTimer(time.Minute)
	defer limit.Stop()
	select {
	case <-r.Context().Done():
	case <-limit.C:
	}
}

// answerFor returns the scripted answer of a request without tools.
func (s *Server) answerFor(body []byte) (Turn, bool) {
	if len(s.script.Answers) == 0 || offersTools(body) {
		return Turn{}, false
	}
	for _, a := range s.script.Answers {
		if a.Contains == "" || strings.Contains(string(body), a.Contains) {
			return a.Turn, true
		}
	}
	return Turn{}, false
}

// withInput makes a turn that reports no input tokens report tokens.
func withInput(t Turn, tokens int) Turn {
	if t.Usage.InputTokens == 0 && t.Usage.CacheReadTokens == 0 && t.Usage.CacheCreationTokens == 0 {
		t.Usage.InputTokens = tokens
	}
	return t
}

// offersTools reports whether a request body offers the model tools.
func offersTools(body []byte) bool {
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	return json.Unmarshal(body, &req) == nil && len(req.Tools) > 0
}

// writeContextLength answers a request of tokens over window with the
// provider's context-length error.
func writeContextLength(w http.ResponseWriter, proto protocol, tokens, window int) {
	if proto == anthropic {
		writeError(w, proto, http.StatusBadRequest, "invalid_request_error",
			fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, window))
		return
	}
	v := map[string]any{"error": map[string]any{
		"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, tokens),
		"type":    "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
	}}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(v)
}

// writeStatusFault answers with the fault's status, headers and body (by
// default the protocol's error JSON).
func writeStatusFault(w http.ResponseWriter, proto protocol, f *Fault) {
	for k, v := range f.Headers {
		w.Header().Set(k, v)
	}
	if f.Body != "" {
		if w.Header().Get("content-type") == "" {
			w.Header().Set("content-type", "application/json")
		}
		w.WriteHeader(f.Status)
		_, _ = io.WriteString(w, f.Body)
		return
	}
	typ, msg := f.Type, f.Message
	if typ == "" {
		typ = defaultErrorType(f.Status)
	}
	if msg == "" {
		msg = http.StatusText(f.Status)
	}
	writeError(w, proto, f.Status, typ, msg)
}

// streamParams is what a stream echoes of its request.
type streamParams struct {
	Model         string `json:"model"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// params reads the stream's parameters from body. A lean server reads the
// body's top-level members only until it has what the protocol needs
// (the model, and for OpenAI's chat the stream options) — the
// conversation that follows is not decoded, as a server's answer does
// not wait for it; a full server decodes the whole body.
func (s *Server) params(proto protocol, body []byte) streamParams {
	var p streamParams
	if !s.isLean() {
		_ = json.Unmarshal(body, &p)
		return p
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return p
	}
	model, options := false, proto != openai
	for !(model && options) && dec.More() {
		key, err := dec.Token()
		if err != nil {
			return p
		}
		var v any = new(json.RawMessage)
		switch key {
		case "model":
			v, model = &p.Model, true
		case "stream_options":
			v, options = &p.StreamOptions, true
		}
		if dec.Decode(v) != nil {
			return p
		}
	}
	return p
}

// stream answers request body with turn n as an event stream.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, proto protocol, body []byte, turn Turn, n int) {
	req := s.params(proto, body)
	st := &streamer{w: w, rc: http.NewResponseController(w), turn: turn, n: n, model: req.Model, done: r.Context().Done(), isAnthropic: proto == anthropic}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	switch proto {
	case anthropic:
		st.anthropic()
	case responses:
		st.responses()
	default:
		st.openai(req.StreamOptions.IncludeUsage)
	}
}

// writeError answers with the protocol's error JSON.
func writeError(w http.ResponseWriter, proto protocol, status int, typ, msg string) {
	var v any
	if proto == anthropic {
		v = map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}}
	} else {
		v = map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": typ}}
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func defaultErrorType(status int) string {
	switch status {
	case 400, 422:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

// streamer writes one turn as an event stream and injects its fault.
type streamer struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	turn   Turn
	n      int
	model  string
	done   <-chan struct{}
	pieces int  // content pieces sent
	fired  bool // the stream fault happened
	seq    int  // the next Responses sequence_number

	isAnthropic bool // keep-alives are ping events, not comments
}

// errStop ends a stream early: the fault happened or the client left.
type errStop struct{}

func (errStop) Error() string { return "stream stopped" }

// event writes one SSE event and flushes it.
func (st *streamer) event(name string, data any) error {
	var b strings.Builder
	if name != "" {
		b.WriteString("event: ")
		b.WriteString(name)
		b.WriteByte('\n')
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	b.WriteString("data: ")
	b.Write(raw)
	b.WriteString("\n\n")
	if _, err := io.WriteString(st.w, b.String()); err != nil {
		return errStop{}
	}
	if err := st.rc.Flush(); err != nil {
		return errStop{}
	}
	return nil
}

// piece writes one content event, after the turn's delay and the fault due
// before it, if any.
func (st *streamer) piece(name string, data any, errorEvent func() error) error {
	if err := st.fault(false, errorEvent); err != nil {
		return err
	}
	if d := time.Duration(st.turn.Delay); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-st.done:
			t.Stop()
			return errStop{}
		}
	}
	st.pieces++
	return st.event(name, data)
}

// fault injects the turn's stream fault when After pieces have been sent.
// It is called before every piece and, with last set, once after the last
// piece, where a fault whose After exceeds the pieces happens too.
func (st *streamer) fault(last bool, errorEvent func() error) error {
	f := st.turn.Fault
	if f == nil || st.fired || st.pieces > f.After || (st.pieces < f.After && !last) {
		return nil
	}
	st.fired = true
	switch {
	case f.Malformed:
		if _, err := io.WriteString(st.w, "data: {\"malformed\n\n"); err != nil {
			return errStop{}
		}
		_ = st.rc.Flush()
		return nil
	case f.Truncate:
		_ = st.rc.Flush()
		return errStop{}
	case f.Disconnect:
		_ = st.rc.Flush()
		panic(http.ErrAbortHandler)
	case f.ErrorEvent:
		if err := errorEvent(); err != nil {
			return err
		}
		return errStop{}
	case f.Stall:
		st.stall(f.Pings)
		return errStop{}
	}
	return nil
}

// stall holds the stream open without content until the client leaves or
// a minute passes, sending a keep-alive every 50 ms when pings is set.
func (st *streamer) stall(pings bool) {
	_ = st.rc.Flush()
	limit := time.NewTimer(time.Minute)
	defer limit.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-st.done:
			return
		case <-limit.C:
			return
		case <-tick.C:
			if !pings {
				continue
			}
			ping := ": keep-alive\n\n"
			if st.isAnthropic {
				ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n"
			}
			if _, err := io.WriteString(st.w, ping); err != nil || st.rc.Flush() != nil {
				return
			}
		}
	}
}

func (st *streamer) errorFields() (typ, msg string) {
	typ, msg = st.turn.Fault.Type, st.turn.Fault.Message
	if typ == "" {
		typ = "api_error"
	}
	if msg == "" {
		msg = "llmtest: scripted error event"
	}
	return typ, msg
}

func (st *streamer) stopReason() string {
	if st.turn.Stop != "" {
		return st.turn.Stop
	}
	if len(st.turn.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func (st *streamer) callID(i int, c ToolCall) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", st.n, i)
}
