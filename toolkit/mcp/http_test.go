package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rubichan/rubichan/toolkit/mcp/mcptest"
)

// TestStreamableHTTP reaches an SDK server over streamable HTTP on
// 127.0.0.1 with a header whose value names an environment variable.
func TestStreamableHTTP(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auth []string
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer(mcptest.Options{}) }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := ServerConfig{Name: "web", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"},
		StartupTimeout: 5 * time.Second, CallTimeout: 5 * time.Second}
	m := Start(context.Background(), []ServerConfig{cfg}, Options{Environ: []string{"WEB_TOKEN=tok-123"}})
	defer m.Close()
	if st := m.Status(); st[0].State != StateReady || st[0].Transport != "http" {
		t.Fatalf("status: %+v", st)
	}
	if res := call(t, toolByName(t, m, "mcp__web__echo"), `{"text":"over http"}`); res.IsError || res.Content != "over http" {
		t.Errorf("echo: %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || strings.Join(auth, ",") != strings.Repeat("Bearer tok-123,", len(auth)-1)+"Bearer tok-123" {
		t.Errorf("Authorization headers: %q", auth)
	}
}

func TestHTTPServerDown(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	cfg := ServerConfig{Name: "down", URL: srv.URL, StartupTimeout: 2 * time.Second, Required: true}
	m := Start(context.Background(), []ServerConfig{cfg}, Options{})
	defer m.Close()
	if st := m.Status(); st[0].State == StateReady || st[0].Reason == "" {
		t.Errorf("status: %+v", st)
	}
}

// TestHTTPHeadersStayWithTheirServer checks that a redirect to another
// origin is refused: the configured headers would otherwise reach it.
func TestHTTPHeadersStayWithTheirServer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization"))
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	cfg := ServerConfig{Name: "moved", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer tok-456"},
		StartupTimeout: 5 * time.Second, CallTimeout: 5 * time.Second}
	m := Start(context.Background(), []ServerConfig{cfg}, Options{})
	defer m.Close()
	st := m.Status()
	if st[0].State == StateReady || !strings.Contains(st[0].Reason, "refused a redirect") {
		t.Errorf("status: %+v, want a refused redirect", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("the other origin received %d requests, Authorization %q", len(leaked), leaked)
	}
}
