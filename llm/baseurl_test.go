package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm/llmtest"
)

// TestBaseURLForms checks that both providers accept a base URL with or
// without /v1 (and a trailing slash), and post to the one right path.
func TestBaseURLForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, proto, suffix, wantPath string
	}{
		{"anthropic bare", "anthropic", "", "/v1/messages"},
		{"anthropic /v1", "anthropic", "/v1", "/v1/messages"},
		{"anthropic /v1/", "anthropic", "/v1/", "/v1/messages"},
		{"anthropic gateway /v1", "anthropic", "/gw/v1", "/gw/v1/messages"},
		{"openai bare", "openai", "", "/v1/chat/completions"},
		{"openai /", "openai", "/", "/v1/chat/completions"},
		{"openai /v1", "openai", "/v1", "/v1/chat/completions"},
		{"openai /api/v1", "openai", "/api/v1", "/api/v1/chat/completions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"ok"}}}})
			defer srv.Close()
			var c streamer = NewAnthropic(AnthropicConfig{BaseURL: srv.URL() + tc.suffix, APIKey: "k"})
			if tc.proto == "openai" {
				c = NewOpenAI(OpenAIConfig{BaseURL: srv.URL() + tc.suffix, APIKey: "k"})
			}
			s, err := c.Stream(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			drain(t, s)
			s.Close()
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Path != tc.wantPath {
				t.Errorf("requests = %+v, want one to %s", reqs, tc.wantPath)
			}
		})
	}
}

// TestNotFoundShowsURL checks that a 404 names the URL posted to, without
// the credentials a URL may carry.
func TestNotFoundShowsURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c := NewOpenAI(OpenAIConfig{BaseURL: "http://user:secret-pw@" + host + "/wrong", APIKey: "k"})
	_, err := c.Stream(context.Background(), simpleRequest())
	var ae *APIError
	if !errors.As(err, &ae) || ae.Kind != KindNotFound {
		t.Fatalf("err = %v, want a not-found APIError", err)
	}
	msg := err.Error()
	if want := "(POST http://" + host + "/wrong/chat/completions; check the base URL)"; !strings.Contains(msg, want) {
		t.Errorf("error %q does not contain %q", msg, want)
	}
	if strings.Contains(msg, "secret") {
		t.Errorf("error %q shows credentials", msg)
	}
}
