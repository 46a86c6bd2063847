package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rubichan/rubichan/toolkit/mcp/mcptest"
)

// hugeServe is how much a hostile server offers at most for one answer:
// far more than the bound, generated as it is written, never held.
const hugeServe = 96 << 20

// countingTransport counts the response body bytes the client read.
type countingTransport struct {
	rt   http.RoundTripper
	read *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err == nil {
		resp.Body = countingBody{ReadCloser: resp.Body, n: c.read}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// serveHuge writes head, then filler bytes until hugeServe bytes were
// served or the client went away; it returns how many it served.
func serveHuge(w http.ResponseWriter, contentType, head string) int64 {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	n, _ := io.WriteString(w, head)
	served := int64(n)
	chunk := bytes.Repeat([]byte("A"), 64<<10)
	for served < hugeServe {
		n, err := w.Write(chunk)
		served += int64(n)
		if err != nil {
			break
		}
	}
	return served
}

// TestHTTPAnswerBounded checks that a streamable HTTP server's answer to a
// call is bounded while it is read, as a JSON body and as one SSE event:
// the call fails with an error naming the bound, and the client reads no
// more than the bound (and its buffering) of the huge answer.
func TestHTTPAnswerBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, contentType, head string
	}{
		{"json", "application/json", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`},
		{"sse", "text/event-stream", `event: message` + "\n" + `data: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer(mcptest.Options{}) }, nil)
			var served atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
				if !bytes.Contains(body, []byte(`"tools/call"`)) {
					r.Body = io.NopCloser(bytes.NewReader(body))
					h.ServeHTTP(w, r)
					return
				}
				served.Add(serveHuge(w, tc.contentType, tc.head))
			}))
			defer srv.Close()
			var read atomic.Int64
			client := &http.Client{Transport: countingTransport{rt: http.DefaultTransport, read: &read}}
			cfg := ServerConfig{Name: "huge", URL: srv.URL, StartupTimeout: 5 * time.Second, CallTimeout: 30 * time.Second}
			m := Start(context.Background(), []ServerConfig{cfg}, Options{HTTPClient: client})
			defer m.Close()
			if st := m.Status(); st[0].State != StateReady {
				t.Fatalf("status: %+v", st)
			}
			before := read.Load()
			res := call(t, toolByName(t, m, "mcp__huge__echo"), `{"text":"x"}`)
			got := read.Load() - before
			if !res.IsError || !strings.Contains(res.Content, "larger than 8 MiB") {
				t.Errorf("result: IsError %v, %.300q", res.IsError, res.Content)
			}
			if got > DefaultMaxMessageBytes+1<<20 {
				t.Errorf("the client read %d bytes of the answer (the server served %d); want at most the bound %d and 1 MiB of buffering",
					got, served.Load(), DefaultMaxMessageBytes)
			}
			t.Logf("read %d bytes, served %d", got, served.Load())
		})
	}
}

// TestHTTPLongSSEStreamAllowed checks that the bound is per event: an SSE
// answer whose events together pass it, each under it, is read whole.
func TestHTTPLongSSEStreamAllowed(t *testing.T) {
	t.Parallel()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer(mcptest.Options{}) }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if !bytes.Contains(body, []byte(`"tools/call"`)) {
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		filler := strings.Repeat("B", 1<<20)
		for range 12 { // 12 MiB in all, 1 MiB an event
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":%q}}\n\n", filler)
		}
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"all read\"}]}}\n\n", req.ID)
	}))
	defer srv.Close()
	cfg := ServerConfig{Name: "long", URL: srv.URL, StartupTimeout: 5 * time.Second, CallTimeout: 30 * time.Second}
	m := Start(context.Background(), []ServerConfig{cfg}, Options{})
	defer m.Close()
	if st := m.Status(); st[0].State != StateReady {
		t.Fatalf("status: %+v", st)
	}
	if res := call(t, toolByName(t, m, "mcp__long__echo"), `{"text":"x"}`); res.IsError || res.Content != "all read" {
		t.Errorf("result: %+v", res)
	}
}
