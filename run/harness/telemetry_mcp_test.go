package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/telemetry"
	"github.com/rubichan/rubichan/run/telemetry/otlptest"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/mcp"
	"github.com/rubichan/rubichan/toolkit/mcp/mcptest"
)

// TestHTTPMCPTraceparent: a call to an HTTP MCP server carries the W3C
// traceparent header of its execute_tool span only when the user opts
// in ([telemetry] propagate_to_providers), as model requests do; with
// telemetry off or without the opt-in, no request carries one.
func TestHTTPMCPTraceparent(t *testing.T) {
	const ci = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for name, tc := range map[string]struct {
		on, propagate bool
	}{
		"off":          {},
		"no opt-in":    {on: true},
		"propagate on": {on: true, propagate: true},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []string  // the traceparent of each request, in order
			var calls []string // the traceparent of the tools/call requests
			h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer(mcptest.Options{}) }, nil)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, r.Header.Get("Traceparent"))
				if r.Method == http.MethodPost {
					b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
					var body struct {
						Method string `json:"method"`
					}
					if json.Unmarshal(b, &body) == nil && body.Method == "tools/call" {
						calls = append(calls, r.Header.Get("Traceparent"))
					}
					r.Body = io.NopCloser(bytes.NewReader(b))
				}
				mu.Unlock()
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			var tel *telemetry.Run
			if tc.on {
				rec := otlptest.New()
				defer rec.Close()
				s := telemetry.Resolve(func(k string) string {
					return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rec.URL, "TRACEPARENT": ci}[k]
				}, telemetry.Config{PropagateToProviders: tc.propagate})
				var err error
				if tel, err = telemetry.Start(context.Background(), s, telemetry.Info{Model: "m"}); err != nil {
					t.Fatal(err)
				}
				defer tel.Close()
			}
			cfg := mcp.ServerConfig{Name: "web", URL: srv.URL, StartupTimeout: 5 * time.Second, CallTimeout: 5 * time.Second}
			m := mcp.Start(context.Background(), []mcp.ServerConfig{cfg}, MCPOptions(withTrace(ChildEnv{}, tel), t.TempDir(), Tools{}))
			defer m.Close()
			if st := m.Status(); st[0].State != mcp.StateReady {
				t.Fatalf("status: %+v", st)
			}
			var echo toolkit.Tool
			for _, tl := range m.Tools() {
				if tl.Spec().Name == "mcp__web__echo" {
					echo = tl
				}
			}
			if echo == nil {
				t.Fatalf("no echo tool among %d", len(m.Tools()))
			}
			var want string // the execute_tool span's traceparent
			err := tel.Around(context.Background(), agent.Op{Kind: agent.OpToolCall, Call: &agent.ToolCallInfo{ID: "c1", Name: "mcp__web__echo"}}, func(ctx context.Context) error {
				if env := tel.Env(ctx); len(env) > 0 {
					want = strings.TrimPrefix(env[0], "TRACEPARENT=")
				}
				res, err := echo.Run(ctx, json.RawMessage(`{"text":"hi"}`))
				if err == nil && res.Content != "hi" {
					t.Errorf("echo: %+v", res)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(calls) != 1 {
				t.Fatalf("%d tools/call requests, want 1 (all: %q)", len(calls), seen)
			}
			if !tc.propagate {
				for _, tp := range seen {
					if tp != "" {
						t.Errorf("a request carried traceparent %q without the opt-in", tp)
					}
				}
				return
			}
			if want == "" || calls[0] != want {
				t.Errorf("tools/call traceparent %q, want the execute_tool span's %q", calls[0], want)
			}
			for _, tp := range seen {
				if !strings.HasPrefix(tp, "00-4bf92f3577b34da6a3ce929d0e0e4736-") {
					t.Errorf("a request carried traceparent %q, want one in the CI's trace", tp)
				}
			}
		})
	}
}
