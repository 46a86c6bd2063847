package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestClientFromEnv: the variables the official exporters honour — the
// signal-specific form wins, headers URL-decoded, timeout in ms, gzip.
func TestClientFromEnv(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":            "authorization=Bearer%20tok, x-a = 1 ,bad",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS":    "x-m=2",
		"OTEL_EXPORTER_OTLP_TIMEOUT":            "1500",
		"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT":     "250",
		"OTEL_EXPORTER_OTLP_COMPRESSION":        "gzip",
		"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none",
	}
	lookup := func(k string) string { return env[k] }
	tc, _ := newClient(lookup, "TRACES", "u1")
	mc, _ := newClient(lookup, "METRICS", "u2")
	if got := tc.headers; len(got) != 2 || got["authorization"] != "Bearer tok" || got["x-a"] != "1" {
		t.Errorf("traces headers %v", got)
	}
	if got := mc.headers; len(got) != 1 || got["x-m"] != "2" {
		t.Errorf("metrics headers %v", got)
	}
	if tc.timeout != 250*time.Millisecond || mc.timeout != 1500*time.Millisecond {
		t.Errorf("timeouts %v %v", tc.timeout, mc.timeout)
	}
	if tc.gzip || !mc.gzip {
		t.Errorf("gzip traces %v metrics %v", tc.gzip, mc.gzip)
	}
	if d, _ := newClient(func(string) string { return "" }, "TRACES", "u"); d.timeout != defaultTimeout || d.gzip || len(d.headers) != 0 {
		t.Errorf("defaults %+v", d)
	}
}

// TestClientPost: what the collector receives, and which answers are
// retried, how often at most.
func TestClientPost(t *testing.T) {
	tests := []struct {
		name      string
		statuses  []int // the answers in turn; the last repeats
		gzip      bool
		wantErr   string
		wantTries int32
	}{
		{"ok", []int{200}, false, "", 1},
		{"gzip", []int{200}, true, "", 1},
		{"503 then ok", []int{503, 200}, false, "", 2},
		{"429 502 504 then ok", []int{429, 502, 504, 200}, false, "", 4},
		{"400 not retried", []int{400}, false, "400 Bad Request: no", 1},
		{"503 bounded", []int{503}, false, "503 Service Unavailable", maxAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tries atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := tries.Add(1)
				body, _ := io.ReadAll(r.Body)
				if tt.gzip {
					if r.Header.Get("Content-Encoding") != "gzip" {
						t.Error("no Content-Encoding: gzip")
					}
					zr, err := gzip.NewReader(bytes.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					body, _ = io.ReadAll(zr)
				}
				if string(body) != "payload" || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Authorization") != "Bearer tok" || r.Method != http.MethodPost {
					t.Errorf("got %s %q with %v", r.Method, body, r.Header)
				}
				w.WriteHeader(tt.statuses[min(int(n), len(tt.statuses))-1])
				io.WriteString(w, "no\n")
			}))
			defer srv.Close()
			c, _ := newClient(func(k string) string {
				return map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer tok"}[k]
			}, "TRACES", srv.URL+"/v1/traces")
			c.gzip, c.backoff = tt.gzip, func(int) time.Duration { return time.Millisecond }
			err := c.post(context.Background(), []byte("payload"))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err %v, want %q", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "tok") {
				t.Errorf("the error shows the header: %v", err)
			}
			if tries.Load() != tt.wantTries {
				t.Errorf("%d tries, want %d", tries.Load(), tt.wantTries)
			}
		})
	}
}

// TestClientTimeout: a collector that never answers costs the timeout.
func TestClientTimeout(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(stop)
	c, _ := newClient(func(k string) string { return map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "100"}[k] }, "TRACES", srv.URL)
	start := time.Now()
	if err := c.post(context.Background(), []byte("x")); err == nil {
		t.Fatal("no error from a silent collector")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v with a 100ms timeout", d)
	}
}

// TestClientCertificate: OTEL_EXPORTER_OTLP_CERTIFICATE names the CA a
// collector's TLS certificate is checked against; a file that cannot be
// read is an error, not a silent plain client.
func TestClientCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	tests := []struct {
		name, certVar, wantNew, wantPost string
		clientKey                        string
	}{
		{"trusted", ca, "", "", ""},
		{"not trusted", "", "", "certificate", ""},
		{"missing file", ca + ".none", "no such file", "", ""},
		{"client certificate", ca, "not built in", "", ca},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newClient(func(k string) string {
				return map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": tt.certVar, "OTEL_EXPORTER_OTLP_CLIENT_KEY": tt.clientKey}[k]
			}, "TRACES", srv.URL)
			if tt.wantNew != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantNew) {
					t.Fatalf("newClient: %v, want %q", err, tt.wantNew)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			err = c.post(context.Background(), []byte("x"))
			if tt.wantPost == "" && err != nil || tt.wantPost != "" && (err == nil || !strings.Contains(err.Error(), tt.wantPost)) {
				t.Errorf("post: %v, want %q", err, tt.wantPost)
			}
		})
	}
}

// TestClientErrorHidesURLCredentials: an endpoint's user, password and
// query never reach the error, whatever fails.
func TestClientErrorHidesURLCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(400) }))
	defer srv.Close()
	for _, raw := range []string{"http://usertok:pass@127.0.0.1:1/v1/traces?api_key=qsecret", strings.Replace(srv.URL, "http://", "http://usertok:pass@", 1) + "/v1/traces?api_key=qsecret"} {
		c, _ := newClient(func(string) string { return "" }, "TRACES", raw)
		err := c.post(context.Background(), []byte("x"))
		if err == nil {
			t.Fatalf("%s: no error", raw)
		}
		for _, secret := range []string{"usertok", "pass@", "qsecret"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows %q: %v", secret, err)
			}
		}
	}
}
