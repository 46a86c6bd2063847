package run

import (
	"encoding/json"
	"github.com/rubichan/rubichan/run/exit"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestLengthErrorChunkUsageCounted: a real OpenRouter answer cut at
// max_tokens, whose only usage comes in the error chunk that follows
// finish_reason "length", counts its tokens (43 in, 10 out) in the run's
// usage and against --max-tokens-total. (The run asks the model to go on
// after each cut answer, and the server sends the same answer each time.)
func TestLengthErrorChunkUsageCounted(t *testing.T) {
	rec, err := os.ReadFile(filepath.Join("..", "testdata", "sse", "openai", "openrouter_length_error.sse"))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args              []string
		in, out, requests int
		stderr            string
	}{
		"two turns":     {[]string{"--max-turns", "2"}, 86, 20, 2, "--max-turns 2"},
		"a token limit": {[]string{"--max-turns", "50", "--max-tokens-total", "150"}, 86, 20, 2, "--max-tokens-total"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				io.Copy(io.Discard, r.Body)
				w.Header().Set("content-type", "text/event-stream")
				w.Write(rec)
			}))
			defer srv.Close()
			home := t.TempDir()
			env := fakeEnv(map[string]string{"OPENAI_API_KEY": "sk-test-0123456789", "HOME": home, "XDG_CONFIG_HOME": home, "XDG_STATE_HOME": home})
			env.Environ = func() []string { return []string{"PATH=/usr/bin:/bin", "HOME=" + home} }
			args := append([]string{"exec", "-C", t.TempDir(), "--provider", "openai", "--base-url", srv.URL,
				"--model", "m", "--no-stdin", "--output", "json"}, tc.args...)
			code, out, errOut := runCLI(t, env, "", append(args, "hi")...)
			var res struct {
				Usage struct {
					InputTokens  int `json:"input_tokens"`
					OutputTokens int `json:"output_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("exit %d, stdout %q (%v), stderr %s", code, out, err, errOut)
			}
			if res.Usage.InputTokens != tc.in || res.Usage.OutputTokens != tc.out || int(requests.Load()) != tc.requests ||
				code != exit.Limit || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("exit %d after %d requests, usage %+v; want exit %d after %d requests with %d in, %d out and %q on stderr:\n%s",
					code, requests.Load(), res.Usage, exit.Limit, tc.requests, tc.in, tc.out, tc.stderr, errOut)
			}
		})
	}
}
