package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := map[string]struct {
		header map[string]string
		want   time.Duration
	}{
		"none":               {nil, 0},
		"seconds":            {map[string]string{"retry-after": "4"}, 4 * time.Second},
		"fractional seconds": {map[string]string{"retry-after": "0.5"}, 500 * time.Millisecond},
		"ms wins":            {map[string]string{"retry-after-ms": "250", "retry-after": "4"}, 250 * time.Millisecond},
		"bad ms falls back":  {map[string]string{"retry-after-ms": "soon", "retry-after": "2"}, 2 * time.Second},
		"http date":          {map[string]string{"retry-after": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		"past date":          {map[string]string{"retry-after": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		"negative":           {map[string]string{"retry-after": "-3"}, 0},
		"garbage":            {map[string]string{"retry-after": "later"}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tc.want {
				t.Errorf("retryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseErrorBody(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ body, typ, msg string }{
		"anthropic":        {`{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}`, "rate_limit_error", "slow"},
		"openai code wins": {`{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota","param":null}}`, "insufficient_quota", "quota"},
		"openai type only": {`{"error":{"message":"bad","type":"invalid_request_error","code":null}}`, "invalid_request_error", "bad"},
		"numeric code":     {`{"error":{"code":402,"message":"Insufficient credits"}}`, "", "Insufficient credits"},
		"string error":     {`{"error":"model not found"}`, "", "model not found"},
		"top message":      {`{"message":"upstream timeout"}`, "", "upstream timeout"},
		"html":             {`<html>502</html>`, "", ""},
		"empty":            {``, "", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			typ, msg := parseErrorBody([]byte(tc.body))
			if typ != tc.typ || msg != tc.msg {
				t.Errorf("parseErrorBody = %q, %q; want %q, %q", typ, msg, tc.typ, tc.msg)
			}
		})
	}
}

func TestClassifyStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status    int
		typ, msg  string
		kind      ErrorKind
		retryable bool
	}{
		{400, "invalid_request_error", "messages.1: bad", KindInvalidRequest, false},
		{400, "invalid_request_error", "prompt is too long: 201000 tokens > 200000 maximum", KindContextLength, false},
		{400, "context_length_exceeded", "", KindContextLength, false},
		{400, "", "This model's maximum context length is 8192 tokens", KindContextLength, false},
		{400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API.", KindQuota, false},
		{401, "authentication_error", "invalid x-api-key", KindAuth, false},
		{402, "", "Insufficient credits", KindQuota, false},
		{403, "permission_error", "", KindAuth, false},
		{404, "not_found_error", "model: x", KindNotFound, false},
		{408, "", "", KindServer, true},
		{413, "request_too_large", "", KindTooLarge, false},
		{422, "", "", KindInvalidRequest, false},
		{429, "rate_limit_error", "", KindRateLimit, true},
		{429, "insufficient_quota", "You exceeded your current quota", KindQuota, false},
		{500, "api_error", "", KindServer, true},
		{501, "", "", KindServer, false},
		{502, "", "", KindServer, true},
		{503, "", "", KindServer, true},
		{504, "", "", KindServer, true},
		{529, "overloaded_error", "Overloaded", KindOverloaded, true},
		{418, "", "", KindInvalidRequest, false},
		{0, "overloaded_error", "", KindOverloaded, true},
		{0, "rate_limit_exceeded", "", KindRateLimit, true},
		{0, "authentication_error", "", KindAuth, false},
		{0, "invalid_request_error", "", KindInvalidRequest, false},
		{0, "server_error", "", KindServer, true},
		{0, "", "", KindServer, true},
	}
	for _, tc := range tests {
		kind, retry := classifyStatus(tc.status, tc.typ, tc.msg)
		if kind != tc.kind || retry != tc.retryable {
			t.Errorf("classifyStatus(%d, %q, %q) = %v, %v; want %v, %v", tc.status, tc.typ, tc.msg, kind, retry, tc.kind, tc.retryable)
		}
	}
}

func TestAPIErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *APIError
		want string
	}{
		{&APIError{Provider: "anthropic", Kind: KindRateLimit, StatusCode: 429, Type: "rate_limit_error", Message: "slow down", RetryAfter: 4 * time.Second},
			"anthropic: rate limit (HTTP 429 rate_limit_error): slow down; retry after 4s"},
		{&APIError{Provider: "openai", Kind: KindServer, StatusCode: 500}, "openai: server error (HTTP 500)"},
		{&APIError{Provider: "openai", Kind: KindOverloaded, Type: "overloaded_error", Message: "busy", Partial: true},
			"openai: overloaded (overloaded_error): busy (after content was streamed)"},
		{&APIError{Provider: "ollama", Kind: KindNetwork, Err: errors.New("connection refused")}, "ollama: network error: connection refused"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	inner := errors.New("inner")
	if !errors.Is(&APIError{Err: inner}, inner) {
		t.Error("Unwrap does not reach the underlying error")
	}
	if KindOf(errors.New("x")) != 0 || IsRetryable(nil) || IsContextLength(nil) {
		t.Error("helpers misjudge non-API errors")
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-api03-SECRETSECRETSECRET"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + r.Header.Get("x-api-key") + r.Header.Get("authorization") + `"}}`))
	}))
	defer srv.Close()
	for name, c := range map[string]streamer{
		"anthropic": NewAnthropic(AnthropicConfig{BaseURL: srv.URL, APIKey: key}),
		"openai":    NewOpenAI(OpenAIConfig{BaseURL: srv.URL, APIKey: key}),
	} {
		_, err := c.Stream(context.Background(), simpleRequest())
		if KindOf(err) != KindAuth || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestNetworkAndContextErrors(t *testing.T) {
	t.Parallel()
	// A port that was just closed on 127.0.0.1: connection refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := NewOpenAI(OpenAIConfig{Provider: "ollama", BaseURL: "http://" + addr + "/v1"})
	_, err = c.Stream(context.Background(), simpleRequest())
	if KindOf(err) != KindNetwork || !IsRetryable(err) || !strings.HasPrefix(err.Error(), "ollama: network error") {
		t.Errorf("refused: err = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Stream(ctx, simpleRequest())
	if !errors.Is(err, context.Canceled) || IsRetryable(err) || KindOf(err) != 0 {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestJSONInsteadOfStream(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body      string
		kind      ErrorKind
		retryable bool
		want      string
	}{
		"error object": {`{"error":{"message":"Upstream overloaded","type":"overloaded_error"}}`, KindOverloaded, true, "Upstream overloaded"},
		"completion":   {`{"id":"x","choices":[{"message":{"content":"hi"}}]}`, KindProtocol, false, "expected an event stream"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("content-type", "application/json; charset=utf-8")
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, err := NewOpenAI(OpenAIConfig{Provider: "gateway", BaseURL: srv.URL}).Stream(context.Background(), simpleRequest())
			if KindOf(err) != tc.kind || IsRetryable(err) != tc.retryable || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (kind %v)", err, KindOf(err))
			}
		})
	}
}

// TestRetryAfterDateUsesClientClock checks that a retry-after HTTP date is
// measured from the client's clock, so a fake clock (the one [Retry] uses)
// sees the wait the provider asked for.
func TestRetryAfterDateUsesClientClock(t *testing.T) {
	t.Parallel()
	now := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC) // long past: time.Now would see no wait
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("retry-after", now.Add(42*time.Second).Format(http.TimeFormat))
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	clk := &fakeClock{now: now}
	for name, c := range map[string]streamer{
		"anthropic": NewAnthropic(AnthropicConfig{BaseURL: srv.URL, Clock: clk}),
		"openai":    NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Clock: clk}),
	} {
		_, err := c.Stream(context.Background(), simpleRequest())
		var ae *APIError
		if !errors.As(err, &ae) || ae.Kind != KindRateLimit || ae.RetryAfter != 42*time.Second {
			t.Errorf("%s: err = %v, want a rate limit with retry-after 42s", name, err)
		}
	}
}

// TestModelNotFound: the bodies providers send for an unknown model are
// told apart from a 404 for a wrong path, which keeps the base-URL hint.
func TestModelNotFound(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		e    APIError
		want bool
	}{
		"anthropic":  {APIError{StatusCode: 404, Type: "not_found_error", Message: "model: claude-nope"}, true},
		"openai":     {APIError{StatusCode: 404, Type: "model_not_found", Message: "The model `x` does not exist or you do not have access to it."}, true},
		"openai 400": {APIError{StatusCode: 400, Type: "model_not_found", Message: "no"}, true},
		"ollama":     {APIError{StatusCode: 404, Message: `model "llama9" not found, try pulling it first`}, true},
		"wrong path": {APIError{StatusCode: 404, Message: "404 page not found"}, false},
		"other 400":  {APIError{StatusCode: 400, Message: "model: bad field"}, false},
		"plain 404":  {APIError{StatusCode: 404, Message: "Not Found"}, false},
	} {
		if got := isModelNotFound(&c.e); got != c.want {
			t.Errorf("%s: isModelNotFound = %v, want %v", name, got, c.want)
		}
	}
}
