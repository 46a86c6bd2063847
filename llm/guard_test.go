package llm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hostileSSE is an Anthropic stream whose one block (of kind typ: text,
// thinking or tool_use) grows by chunk bytes n times.
func hostileSSE(typ string, n, chunk int) string {
	start := map[string]string{
		"text":     `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"thinking": `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		"tool_use": `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"write","input":{}}}`,
	}[typ]
	piece := strings.Repeat("a", chunk)
	delta := map[string]string{
		"text":     deltaJSON("0", "text_delta", "text", piece),
		"thinking": deltaJSON("0", "thinking_delta", "thinking", piece),
		"tool_use": deltaJSON("0", "input_json_delta", "partial_json", piece),
	}[typ]
	var b strings.Builder
	b.WriteString(antSSE("message_start", antStart, "content_block_start", start))
	for range n {
		b.WriteString(antSSE("content_block_delta", delta))
	}
	b.WriteString(antSSE("content_block_stop", antStop0, "message_stop", antMsgStop))
	return b.String()
}

func TestResponseCap(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"text", "thinking", "tool_use"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			body := hostileSSE(typ, 40, 1<<10) // 40 KB against a 32 KB cap
			s := newStream("anthropic", io.NopCloser(strings.NewReader(body)), &anthropicDecoder{}, nil)
			s.acc.limit = 32 << 10
			for s.Next() {
			}
			var e *APIError
			if !errors.As(s.Err(), &e) || e.Kind != KindProtocol || e.Retryable || IsRetryable(s.Err()) {
				t.Fatalf("err = %#v, want a protocol error that is not retryable", s.Err())
			}
			if !strings.Contains(e.Error(), "exceeded the cap of 32 KB") {
				t.Errorf("error %q does not name the cap", e)
			}
			if s.acc.size > 33<<10 {
				t.Errorf("kept %d bytes past a 32 KB cap", s.acc.size)
			}
			// Under the cap the same answer completes.
			s = newStream("anthropic", io.NopCloser(strings.NewReader(body)), &anthropicDecoder{}, nil)
			s.acc.limit = 41 << 10
			for s.Next() {
			}
			if s.Err() != nil {
				t.Errorf("under the cap: %v", s.Err())
			}
		})
	}
}

// TestResponseCapDefault checks that a client applies the default cap.
func TestResponseCapDefault(t *testing.T) {
	t.Parallel()
	c := NewAnthropic(AnthropicConfig{BaseURL: "http://127.0.0.1:1"})
	if got := c.t.limits.maxBytes(); got != DefaultMaxResponseBytes {
		t.Errorf("default cap %d, want %d", got, DefaultMaxResponseBytes)
	}
	if got := (StreamLimits{MaxResponseBytes: -1}).maxBytes(); got != 0 {
		t.Errorf("negative cap gives %d, want none", got)
	}
}

// keyServer records whether any request reached it and with which key.
type keyServer struct {
	*httptest.Server
	hits atomic.Int32
	keys atomic.Value
}

func newKeyServer(t *testing.T) *keyServer {
	ks := &keyServer{}
	ks.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks.hits.Add(1)
		ks.keys.Store(r.Header.Get("x-api-key") + r.Header.Get("authorization"))
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(ks.Close)
	return ks
}

// redirector answers every request with a 307 to target.
func redirector(target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("location", target+r.URL.Path)
		w.WriteHeader(http.StatusTemporaryRedirect)
	})
}

func TestRedirectToAnotherOriginRefused(t *testing.T) {
	t.Parallel()
	const key = "sk-secret-0123456789"
	victim := newKeyServer(t)
	port := victim.URL[strings.LastIndex(victim.URL, ":")+1:]
	plain := httptest.NewServer(nil)
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(redirector(victim.URL))
	defer tlsSrv.Close()
	tests := map[string]struct {
		from   string
		hc     *http.Client
		target string // the host the error must name
	}{
		"another port": {from: "", target: "http://127.0.0.1:" + port},
		"another host": {from: "", target: "http://localhost:" + port},
		"downgrade":    {from: tlsSrv.URL, hc: tlsSrv.Client(), target: "http://127.0.0.1:" + port},
	}
	for name, tc := range tests {
		for _, provider := range []string{"anthropic", "openai"} {
			t.Run(name+"/"+provider, func(t *testing.T) {
				from := tc.from
				if from == "" {
					src := httptest.NewServer(redirector(tc.target))
					defer src.Close()
					from = src.URL
				}
				var s streamer = NewAnthropic(AnthropicConfig{BaseURL: from, APIKey: key, HTTPClient: tc.hc})
				if provider == "openai" {
					s = NewOpenAI(OpenAIConfig{BaseURL: from, APIKey: key, HTTPClient: tc.hc})
				}
				before := victim.hits.Load()
				_, err := s.Stream(context.Background(), Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
				var e *APIError
				if !errors.As(err, &e) || e.Retryable || e.StatusCode != http.StatusTemporaryRedirect {
					t.Fatalf("err = %v, want a refused 307", err)
				}
				msg := err.Error()
				if !strings.Contains(msg, "HTTP 307") || !strings.Contains(msg, tc.target) || strings.Contains(msg, key) {
					t.Errorf("error %q should name HTTP 307 and %s, and never the key", msg, tc.target)
				}
				if victim.hits.Load() != before {
					t.Errorf("the redirect's target was contacted (with %q)", victim.keys.Load())
				}
			})
		}
	}
}

func TestRedirectSameOriginFollowed(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/messages" {
			w.Header().Set("location", "/moved/v1/messages")
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		}
		got.Store(r.Header.Get("x-api-key"))
		w.Header().Set("content-type", "text/event-stream")
		io.WriteString(w, hostileSSE("text", 1, 3))
	}))
	defer srv.Close()
	s, err := NewAnthropic(AnthropicConfig{BaseURL: srv.URL, APIKey: "k"}).Stream(context.Background(), Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for s.Next() {
	}
	if s.Err() != nil || got.Load() != "k" {
		t.Errorf("err %v, key at the new path %q", s.Err(), got.Load())
	}
}

// stallServer answers attempt 1 according to first, later attempts with
// a short complete answer.
func stallServer(t *testing.T, first func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server notices the client leaving
		if n.Add(1) == 1 {
			first(w, r)
			return
		}
		w.Header().Set("content-type", "text/event-stream")
		io.WriteString(w, hostileSSE("text", 1, 3))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// hang waits until the client goes away or 10 s pass.
func hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	const idle = 300 * time.Millisecond
	tests := map[string]struct {
		first func(w http.ResponseWriter, r *http.Request)
		kind  ErrorKind
	}{
		"no headers": {func(w http.ResponseWriter, r *http.Request) { hang(r) }, KindNetwork},
		"stall after headers": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/event-stream")
			w.WriteHeader(200)
			io.WriteString(w, antSSE("message_start", antStart))
			w.(http.Flusher).Flush()
			hang(r)
		}, KindStreamCut},
		"pings only": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/event-stream")
			w.WriteHeader(200)
			for range 200 {
				if _, err := io.WriteString(w, antSSE("ping", `{"type":"ping"}`)); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}, KindStreamCut},
		"a byte at a time": {func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/event-stream")
			w.WriteHeader(200)
			for _, c := range []byte(antSSE("message_start", antStart) + strings.Repeat(":", 200)) {
				if _, err := w.Write([]byte{c}); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}, KindStreamCut},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, n := stallServer(t, tc.first)
			c := NewAnthropic(AnthropicConfig{BaseURL: srv.URL, Limits: StreamLimits{IdleTimeout: idle}})
			start := time.Now()
			text, notices, err := streamTwice(context.Background(), c)
			if err != nil || n.Load() != 2 || text != "aaa" {
				t.Fatalf("err %v after %d attempts, text %q; want the second attempt's answer", err, n.Load(), text)
			}
			if len(notices) != 1 || KindOf(notices[0].Err) != tc.kind || !strings.Contains(notices[0].Err.Error(), "stalled") {
				t.Fatalf("notices %v, want one %v stall", notices, tc.kind)
			}
			if d := time.Since(start); d < idle {
				t.Errorf("retried after %v, before the idle timeout", d)
			}
		})
	}
}

// TestIdleTimeoutSlowConsumer checks that time the consumer spends between
// reads is not taken for a stalled server.
func TestIdleTimeoutSlowConsumer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		io.WriteString(w, hostileSSE("text", 3, 3))
	}))
	defer srv.Close()
	c := NewAnthropic(AnthropicConfig{BaseURL: srv.URL, Limits: StreamLimits{IdleTimeout: 400 * time.Millisecond}})
	s, err := c.Stream(context.Background(), Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for s.Next() {
		time.Sleep(500 * time.Millisecond) // longer than the idle timeout
	}
	if s.Err() != nil {
		t.Errorf("slow consumer: %v", s.Err())
	}
}

// TestSameOriginRedirectScheme pins the scheme check: https://host and
// http://host share a Host string when neither names its port, so only the
// scheme tells that a redirect downgrades to plain http (where the key
// would travel in clear).
func TestSameOriginRedirectScheme(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to string
		refused  bool
	}{
		{"https://api.example.com/v1/messages", "http://api.example.com/v1/messages", true},
		{"https://api.example.com:443/v1", "http://api.example.com:443/v1", true},
		{"http://api.example.com/v1", "https://api.example.com/v1", true},
		{"https://api.example.com/v1", "https://API.example.com/moved", false},
		{"https://api.example.com/v1", "https://api.example.com:8443/v1", true},
	}
	for _, tc := range tests {
		t.Run(tc.from+"→"+tc.to, func(t *testing.T) {
			t.Parallel()
			from, err := http.NewRequest(http.MethodPost, tc.from, nil)
			if err != nil {
				t.Fatal(err)
			}
			to, err := http.NewRequest(http.MethodPost, tc.to, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = sameOriginRedirect(to, []*http.Request{from})
			var re *redirectError
			if refused := errors.As(err, &re); refused != tc.refused {
				t.Errorf("sameOriginRedirect(%s → %s) = %v, want refused %v", tc.from, tc.to, err, tc.refused)
			}
		})
	}
}

// silentThenAnswer listens on 127.0.0.1: its first connection is accepted
// and never answered (not even headers); the later ones get an answer.
// It counts the connections.
func silentThenAnswer(t *testing.T) (url string, n *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n = new(atomic.Int32)
	var held []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if n.Add(1) == 1 {
				mu.Lock()
				held = append(held, c)
				mu.Unlock()
				go io.Copy(io.Discard, c)
				continue
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				body := hostileSSE("text", 1, 3)
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s", len(body), body)
			}()
		}
	}()
	return "http://" + ln.Addr().String(), n
}

// TestHeaderTimeout: a server that accepts the connection and never sends
// the response headers is cut after HeaderTimeout, far sooner than the
// idle timeout, and the attempt is retried under the retry policy (a
// retryable KindNetwork error); once the headers have come, the body's
// waits are the idle timeout's, not the header timeout's.
func TestHeaderTimeout(t *testing.T) {
	t.Parallel()
	const header = 300 * time.Millisecond
	t.Run("silent server", func(t *testing.T) {
		t.Parallel()
		url, n := silentThenAnswer(t)
		c := NewAnthropic(AnthropicConfig{BaseURL: url, Limits: StreamLimits{HeaderTimeout: header, IdleTimeout: 10 * time.Minute}})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		start := time.Now()
		text, notices, err := streamTwice(ctx, c)
		if err != nil || n.Load() != 2 || text != "aaa" {
			t.Fatalf("err %v after %d connections, text %q; want the second attempt's answer", err, n.Load(), text)
		}
		if len(notices) != 1 || KindOf(notices[0].Err) != KindNetwork || !IsRetryable(notices[0].Err) ||
			!strings.Contains(notices[0].Err.Error(), "no response headers within 300ms") {
			t.Fatalf("notices %v, want one retryable network stall naming the header timeout", notices)
		}
		if d := time.Since(start); d < header {
			t.Errorf("retried after %v, before the header timeout", d)
		}
	})
	t.Run("headers, then silence", func(t *testing.T) {
		// A long header timeout does not lift the idle timeout from the
		// body's first byte: the attempt ends after IdleTimeout.
		t.Parallel()
		srv, _ := stallServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			hang(r)
		})
		c := NewAnthropic(AnthropicConfig{BaseURL: srv.URL, Limits: StreamLimits{HeaderTimeout: 10 * time.Minute, IdleTimeout: header}})
		start := time.Now()
		s, err := c.Stream(context.Background(), Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for s.Next() {
		}
		var e *APIError
		if !errors.As(s.Err(), &e) || e.Kind != KindStreamCut || time.Since(start) > 5*time.Second {
			t.Fatalf("err %v after %v; want a stream cut after %v", s.Err(), time.Since(start), header)
		}
	})
	t.Run("slow body after the headers", func(t *testing.T) {
		t.Parallel()
		srv, n := stallServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			time.Sleep(3 * header)
			io.WriteString(w, hostileSSE("text", 1, 2))
		})
		c := NewAnthropic(AnthropicConfig{BaseURL: srv.URL, Limits: StreamLimits{HeaderTimeout: header, IdleTimeout: 10 * time.Minute}})
		s, err := c.Stream(context.Background(), Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var text strings.Builder
		for s.Next() {
			text.WriteString(s.Current().Text)
		}
		if s.Err() != nil || text.String() != "aa" || n.Load() != 1 {
			t.Fatalf("err %v, text %q after %d requests; want the first answer whole", s.Err(), text.String(), n.Load())
		}
	})
}

// TestHeaderWait: the header wait defaults to DefaultHeaderTimeout, far
// below the idle timeout; the idle timeout bounds it too when it is
// shorter, and either alone applies when the other is off.
func TestHeaderWait(t *testing.T) {
	t.Parallel()
	if DefaultHeaderTimeout > DefaultIdleTimeout/4 {
		t.Errorf("DefaultHeaderTimeout %v: not much shorter than the idle timeout %v", DefaultHeaderTimeout, DefaultIdleTimeout)
	}
	for _, tc := range []struct {
		l    StreamLimits
		want time.Duration
	}{
		{StreamLimits{}, DefaultHeaderTimeout},
		{StreamLimits{HeaderTimeout: 2 * time.Second}, 2 * time.Second},
		{StreamLimits{IdleTimeout: 300 * time.Millisecond}, 300 * time.Millisecond},
		{StreamLimits{HeaderTimeout: time.Hour, IdleTimeout: 2 * time.Minute}, time.Hour},
		{StreamLimits{HeaderTimeout: -1, IdleTimeout: 2 * time.Minute}, 2 * time.Minute},
		{StreamLimits{HeaderTimeout: -1}, DefaultIdleTimeout},
		{StreamLimits{IdleTimeout: -1}, DefaultHeaderTimeout},
		{StreamLimits{HeaderTimeout: -1, IdleTimeout: -1}, 0},
	} {
		if got := tc.l.headerWait(); got != tc.want {
			t.Errorf("%+v: header wait %v, want %v", tc.l, got, tc.want)
		}
	}
}

// streamTwice streams one request from c under a policy of two attempts
// without waits, and returns the text of the attempt that finished, the
// retry notices and the error.
func streamTwice(ctx context.Context, c streamer) (string, []RetryNotice, error) {
	var notices []RetryNotice
	var text strings.Builder
	p := RetryPolicy{MaxAttempts: 2, Jitter: func(time.Duration) time.Duration { return 0 }}
	err := Retry(ctx, p, nil, func(ctx context.Context) error {
		s, err := c.Stream(ctx, Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
		if err != nil {
			return err
		}
		defer s.Close()
		for s.Next() {
			text.WriteString(s.Current().Text)
		}
		return s.Err()
	}, func(rn RetryNotice) { notices = append(notices, rn) })
	return text.String(), notices, err
}
