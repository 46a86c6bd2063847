package subquery

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// startLimited starts a server with lim in place of the default limits.
func startLimited(t *testing.T, lim limits) *Server {
	t.Helper()
	s, err := listen(t.TempDir(), func(context.Context, int, Request) Response { return Response{Text: "answered"} }, lim)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); s.Close(); <-done })
	return s
}

// readRefusal reads the one line the server answers a connection it
// refuses, within wait.
func readRefusal(t *testing.T, c net.Conn, wait time.Duration) Response {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	var resp Response
	if err := newLineReader(c).next(&resp); err != nil {
		t.Fatalf("no refusal within %v: %v", wait, err)
	}
	return resp
}

// TestUnauthenticatedBodiesAreNotBuffered: 24 connections that send a
// big request without the token (no hello line first) are refused after
// a small header, not once the server has buffered their bodies: each
// gets the refusal having sent little of its body, and the server's
// allocations stay far below the bodies' size.
func TestUnauthenticatedBodiesAreNotBuffered(t *testing.T) {
	const conns, body = 24, 8 << 20
	s := startLimited(t, defaultLimits())
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	var wg sync.WaitGroup
	sent := make([]int, conns)
	resps := make([]Response, conns)
	errs := make([]error, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("unix", s.Path())
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			n, _ := c.Write([]byte(`{"prompt":"q","input":"`))
			sent[i] += n
			for sent[i] < body {
				n, err := c.Write(chunk)
				sent[i] += n
				if err != nil {
					break
				}
			}
			c.Write([]byte("\"}\n"))
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			errs[i] = newLineReader(c).next(&resps[i])
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	for i := range conns {
		if errs[i] != nil {
			t.Fatalf("connection %d: %v", i, errs[i])
		}
		if r := resps[i]; r.Error == nil || r.Error.Code != CodeRefused || !strings.Contains(r.Error.Message, TokenEnv) {
			t.Fatalf("connection %d: %+v, want refused naming %s", i, r, TokenEnv)
		}
		if sent[i] >= body/2 {
			t.Errorf("connection %d sent %d bytes before its refusal: the server read its body", i, sent[i])
		}
	}
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d refused connections: %d KB allocated, %v", conns, grew>>10, elapsed)
	if grew > 16<<20 {
		t.Errorf("the server allocated %d MB for %d refused connections of %d MB each", grew>>20, conns, body>>20)
	}
	if elapsed > 10*time.Second {
		t.Errorf("refusing took %v", elapsed)
	}
}

// TestSlowLorisClosed: a connection that never sends the token (nothing,
// or half a hello line) is refused and closed at the hello deadline.
func TestSlowLorisClosed(t *testing.T) {
	t.Parallel()
	const hello = 300 * time.Millisecond
	s := startLimited(t, limits{helloTimeout: hello, maxPending: 4})
	for name, sends := range map[string]string{"nothing": "", "half a hello": `{"tok`} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The server's deadline starts when it accepts, which may come
			// before Dial returns: the clock starts before the dial.
			start := time.Now()
			c, err := net.Dial("unix", s.Path())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Write([]byte(sends))
			if r := readRefusal(t, c, 5*time.Second); r.Error == nil || r.Error.Code != CodeRefused {
				t.Fatalf("got %+v, want a refusal", r)
			}
			if d := time.Since(start); d < hello {
				t.Errorf("closed after %v, before the hello deadline", d)
			}
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
				t.Errorf("after the refusal: %d bytes, %v; want the connection closed", n, err)
			}
		})
	}
}

// TestUnauthenticatedConnectionsBounded: at most maxPending connections
// wait for their token at once; the others wait to be accepted, and a
// client with the token is still answered once the silent ones are
// closed at their deadline.
func TestUnauthenticatedConnectionsBounded(t *testing.T) {
	t.Parallel()
	lim := limits{helloTimeout: 400 * time.Millisecond, maxPending: 3}
	s := startLimited(t, lim)
	var silent []net.Conn
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	for range 4 * lim.maxPending {
		c, err := net.Dial("unix", s.Path())
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
	}
	for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n > lim.maxPending {
			t.Fatalf("%d connections without a token held at once, want at most %d", n, lim.maxPending)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := Dial(ctx, s.Path(), s.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if resp, err := cl.Ask(ctx, Request{Prompt: "q"}); err != nil || resp.Text != "answered" {
		t.Fatalf("a client with the token behind the silent ones: %+v, %v", resp, err)
	}
}

// TestHelloTooLongRefused: a first line longer than a hello is refused
// at once, whatever it holds, the token included.
func TestHelloTooLongRefused(t *testing.T) {
	t.Parallel()
	s := startLimited(t, defaultLimits())
	c, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	line, _ := json.Marshal(map[string]string{"token": s.Token(), "padding": strings.Repeat("p", 4096)})
	c.Write(append(line, '\n'))
	if r := readRefusal(t, c, 3*time.Second); r.Error == nil || r.Error.Code != CodeRefused {
		t.Fatalf("got %+v, want a refusal", r)
	}
}
