package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTools bounds how many tools one server may list.
const maxTools = 1000

// server is one configured server and its connection. Its methods are
// safe for concurrent use.
type server struct {
	cfg    ServerConfig
	opts   *Options
	client *sdk.Client

	restart sync.Mutex // held while a caller finds or restarts the session

	mu       sync.Mutex
	sess     *sdk.ClientSession
	proc     *proc         // stdio only
	over     *overflow     // http only: an answer past the bound, which ends the session
	ended    chan struct{} // closed when the session's connection ends
	restarts int
	closed   bool
}

func newServer(cfg ServerConfig, opts *Options) *server {
	c := sdk.NewClient(&sdk.Implementation{Name: "rubichan", Version: "1"}, &sdk.ClientOptions{
		// No roots: a server such as server-filesystem would otherwise ask
		// for them and replace the directories it was given.
		Capabilities: &sdk.ClientCapabilities{},
	})
	return &server{cfg: cfg, opts: opts, client: c}
}

// connect starts (stdio) or reaches (HTTP) the server and initialises the
// session, within ctx. The caller holds no lock.
func (s *server) connect(ctx context.Context) error {
	var t sdk.Transport
	var p *proc
	var over *overflow
	switch s.cfg.Kind() {
	case "in-process":
		t = s.cfg.Transport
	case "http":
		over = &overflow{}
		// The SDK's own bound of an SSE event is a backstop past ours,
		// which records why the session ended.
		t = &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(over), MaxRetries: 1, DisableStandaloneSSE: true,
			MaxEventSize: 2 * DefaultMaxMessageBytes}
	default:
		var err error
		if p, t, err = startProc(s.cfg, s.opts); err != nil {
			return err
		}
	}
	sess, err := s.client.Connect(ctx, t, nil)
	if err != nil {
		if p != nil {
			p.stop()
			if why := p.exitReason(); why != "" {
				err = fmt.Errorf("%w (the process %s)", err, why)
			}
		}
		return err
	}
	ended := make(chan struct{})
	go func() {
		sess.Wait()
		close(ended)
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		go stopSession(sess, p)
		return errors.New("stopped")
	}
	s.sess, s.proc, s.over, s.ended = sess, p, over, ended
	return nil
}

// listTools lists the server's tools, following pages, at most maxTools.
func (s *server) listTools(ctx context.Context) ([]*sdk.Tool, error) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	var tools []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if len(tools) == maxTools {
			return nil, fmt.Errorf("it lists more than %d tools", maxTools)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// session returns the live session, restarting the server once if it
// ended; ok is false with the reason when there is none.
func (s *server) session(ctx context.Context) (sess *sdk.ClientSession, why string) {
	s.restart.Lock()
	defer s.restart.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, "the run is ending"
	}
	if !s.isEnded() {
		sess = s.sess
		s.mu.Unlock()
		return sess, ""
	}
	s.mu.Unlock()
	s.awaitExit(endWait)
	s.mu.Lock()
	why = s.deathLocked()
	if s.restarts > 0 || s.cfg.Transport != nil {
		s.mu.Unlock()
		return nil, why + "; it is not restarted again"
	}
	s.restarts++
	old, oldProc := s.sess, s.proc
	s.mu.Unlock()
	stopSession(old, oldProc)
	cctx, cancel := context.WithTimeout(ctx, s.cfg.startupTimeout())
	defer cancel()
	if err := s.connect(cctx); err != nil {
		return nil, why + "; restarting it failed: " + err.Error()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess, ""
}

// isEnded reports whether the session's connection ended; s.mu is held.
func (s *server) isEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// awaitExit waits up to d for a stdio server's process to be reaped, so
// that its exit can be told.
func (s *server) awaitExit(d time.Duration) {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return
	}
	select {
	case <-p.exited:
	case <-time.After(d):
	}
}

// deathLocked says how the server stopped; s.mu is held.
func (s *server) deathLocked() string {
	why := "the MCP server " + s.cfg.Name + " stopped"
	if r := s.over.reason(); r != "" {
		why += " (" + r + ")"
	}
	if s.proc != nil {
		if r := s.proc.exitReason(); r != "" {
			why += " (" + r + ")"
		}
	}
	return why
}

// close stops the server; later calls fail.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	sess, p := s.sess, s.proc
	s.mu.Unlock()
	stopSession(sess, p)
}

// stopSession ends a session and its process (either may be nil): the
// process group first, so that closing the session cannot wait on a
// server that does not read its stdin.
func stopSession(sess *sdk.ClientSession, p *proc) {
	if p != nil {
		p.stop()
	}
	if sess == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		sess.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopWait):
	}
}

// httpClient is the client of a streamable HTTP server: the configured
// one, with its responses bounded while they are read ([boundTransport],
// past the bound recorded in over) and the server's headers added to
// every request.
func (s *server) httpClient(over *overflow) *http.Client {
	base := s.opts.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = boundTransport{rt: rt, max: DefaultMaxMessageBytes, over: over}
	if s.opts.Headers != nil {
		c.Transport = hookTransport{add: s.opts.Headers, rt: c.Transport}
	}
	if len(s.cfg.Headers) == 0 {
		return &c
	}
	h := make(http.Header, len(s.cfg.Headers))
	for k, v := range s.cfg.Headers {
		h.Set(k, expand(v, expandable(s.opts)))
	}
	c.Transport = headerTransport{h: h, rt: c.Transport}
	c.CheckRedirect = sameOrigin
	return &c
}

// sameOrigin follows a redirect only to the scheme, host and port of the
// request it answers, at most 5 times: the transport adds the server's
// headers (credentials, often) to every request, and Go's own rule of
// dropping Authorization on a redirect elsewhere cannot see them.
func sameOrigin(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	if req.URL.Scheme != from.Scheme || req.URL.Host != from.Host {
		return fmt.Errorf("refused a redirect to %s://%s: the server's headers go only to %s://%s", req.URL.Scheme, req.URL.Host, from.Scheme, from.Host)
	}
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	return nil
}

// hookTransport adds the headers [Options.Headers] gives for each
// request's context.
type hookTransport struct {
	add func(ctx context.Context, set func(key, value string))
	rt  http.RoundTripper
}

func (t hookTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	t.add(r.Context(), r.Header.Set)
	return t.rt.RoundTrip(r)
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	h  http.Header
	rt http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.rt.RoundTrip(r)
}
