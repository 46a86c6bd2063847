package llm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrorKind classifies an [APIError] so the caller can decide what to do.
type ErrorKind uint8

// The classes of provider failure.
const (
	// KindServer is a provider-side failure (HTTP 500, 502, 503, 504, 408, or
	// an unspecific error event); retryable.
	KindServer ErrorKind = iota + 1
	// KindOverloaded is Anthropic's 529 overloaded_error; retryable.
	KindOverloaded
	// KindRateLimit is HTTP 429 other than exhausted quota; retryable after
	// [APIError.RetryAfter].
	KindRateLimit
	// KindQuota is an exhausted quota, credit balance or billing problem
	// (insufficient_quota, HTTP 402); fatal.
	KindQuota
	// KindAuth is HTTP 401 or 403: a missing, wrong or unauthorised key; fatal.
	KindAuth
	// KindInvalidRequest is HTTP 400 or 422 other than context length; fatal.
	KindInvalidRequest
	// KindContextLength means the prompt does not fit the model's context
	// window; fatal.
	KindContextLength
	// KindNotFound is HTTP 404, usually an unknown model or a wrong base URL;
	// fatal.
	KindNotFound
	// KindTooLarge is HTTP 413, a request body over the provider's limit;
	// fatal.
	KindTooLarge
	// KindNetwork is a failure to connect or to get a response; retryable.
	KindNetwork
	// KindStreamCut means the stream ended before the protocol's end marker
	// (a reset connection or a body that just stopped); retryable unless
	// content was already streamed (see [APIError.Partial]).
	KindStreamCut
	// KindProtocol means the stream broke the protocol: malformed data, an
	// oversized event, an out-of-order or unknown content block. Treated
	// like a cut stream.
	KindProtocol
)

// String returns a short human name such as "rate limit".
func (k ErrorKind) String() string {
	switch k {
	case KindServer:
		return "server error"
	case KindOverloaded:
		return "overloaded"
	case KindRateLimit:
		return "rate limit"
	case KindQuota:
		return "quota exhausted"
	case KindAuth:
		return "authentication failed"
	case KindInvalidRequest:
		return "invalid request"
	case KindContextLength:
		return "context length exceeded"
	case KindNotFound:
		return "not found"
	case KindTooLarge:
		return "request too large"
	case KindNetwork:
		return "network error"
	case KindStreamCut:
		return "stream cut"
	case KindProtocol:
		return "protocol error"
	}
	return "unknown error"
}

// APIError is a failed model call, from an HTTP error status, an error event
// inside a 200 stream, a network failure or a broken stream.
//
// Retryable says the failure is transient by its class. Partial says content
// (text, thinking or a tool call) had already been delivered as events when
// the stream failed; [IsRetryable] is false for partial failures, so a caller
// that retries them anyway must discard or re-print what it showed.
type APIError struct {
	Provider   string        // "anthropic", "openai", "openrouter", ...
	Kind       ErrorKind     // the class of failure
	StatusCode int           // HTTP status; 0 for failures without one
	Type       string        // the provider's error type or code, if any
	Message    string        // the provider's message, API key redacted
	RequestID  string        // the provider's request id header, if any
	URL        string        // on a 404: the URL posted to, without credentials
	Model      string        // when the provider said the model does not exist: the model asked for
	KeyVar     string        // on an auth failure: the variable the key came from, if known
	RetryAfter time.Duration // from retry-after-ms or retry-after; 0 if none
	Retryable  bool          // the failure is transient
	Partial    bool          // content was streamed before the failure
	Err        error         // the underlying error (network, decode), if any
}

// Error returns a one-line description such as
// "anthropic: rate limit (HTTP 429 rate_limit_error): slow down; retry after 4s".
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	b.WriteString(e.Kind.String())
	if e.StatusCode != 0 || e.Type != "" {
		b.WriteString(" (")
		if e.StatusCode != 0 {
			b.WriteString("HTTP ")
			b.WriteString(strconv.Itoa(e.StatusCode))
			if e.Type != "" {
				b.WriteByte(' ')
			}
		}
		b.WriteString(e.Type)
		b.WriteByte(')')
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	if e.Model != "" {
		fmt.Fprintf(&b, " (model %q was not found: choose another with --model, or list the provider's models)", e.Model)
	}
	if e.KeyVar != "" {
		b.WriteString(" (the key came from ")
		b.WriteString(e.KeyVar)
		b.WriteString(")")
	}
	if e.URL != "" {
		b.WriteString(" (POST ")
		b.WriteString(e.URL)
		b.WriteString("; check the base URL)")
	}
	if e.Partial {
		b.WriteString(" (after content was streamed)")
	}
	if e.RetryAfter > 0 {
		b.WriteString("; retry after ")
		b.WriteString(e.RetryAfter.String())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *APIError) Unwrap() error { return e.Err }

// IsRetryable reports whether err is an [*APIError] of a transient class
// whose stream had not delivered content yet. Context cancellation and
// deadline errors are never retryable.
func IsRetryable(err error) bool {
	if err == nil || isContextErr(err) {
		return false
	}
	var e *APIError
	return errors.As(err, &e) && e.Retryable && !e.Partial
}

// IsContextLength reports whether err says the prompt exceeded the model's
// context window.
func IsContextLength(err error) bool { return KindOf(err) == KindContextLength }

// KindOf returns the [ErrorKind] of the [*APIError] in err's chain, or 0.
func KindOf(err error) ErrorKind {
	var e *APIError
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// classifyStatus maps an HTTP status and the provider's error type, code and
// message to an error class and whether it is transient.
func classifyStatus(status int, typ, msg string) (ErrorKind, bool) {
	lt, lm := strings.ToLower(typ), strings.ToLower(msg)
	switch {
	case isQuota(lt, lm) || status == 402:
		return KindQuota, false
	case isContextLength(lt, lm):
		return KindContextLength, false
	}
	switch status {
	case 400, 422:
		return KindInvalidRequest, false
	case 401, 403:
		return KindAuth, false
	case 404:
		return KindNotFound, false
	case 413:
		return KindTooLarge, false
	case 429:
		return KindRateLimit, true
	case 529:
		return KindOverloaded, true
	case 408, 500, 502, 503, 504:
		return KindServer, true
	}
	if status == 0 {
		return classifyType(lt)
	}
	if status >= 500 {
		return KindServer, false
	}
	return KindInvalidRequest, false
}

// classifyType maps an error type or code without an HTTP status (an error
// event inside a 200 stream) to a class.
func classifyType(lt string) (ErrorKind, bool) {
	switch {
	case strings.Contains(lt, "overloaded"):
		return KindOverloaded, true
	case strings.Contains(lt, "rate_limit"):
		return KindRateLimit, true
	case strings.Contains(lt, "authentication"), strings.Contains(lt, "permission"):
		return KindAuth, false
	case strings.Contains(lt, "not_found"):
		return KindNotFound, false
	case strings.Contains(lt, "request_too_large"):
		return KindTooLarge, false
	case strings.Contains(lt, "invalid_request"), strings.Contains(lt, "invalid_prompt"),
		strings.Contains(lt, "tool_use_failed"):
		// Groq's tool_use_failed: the model produced a tool call the
		// server could not parse; retrying the same request is no cure.
		return KindInvalidRequest, false
	}
	// api_error, server_error, an unknown type: a provider-side failure.
	return KindServer, true
}

func isQuota(lt, lm string) bool {
	return strings.Contains(lt, "insufficient_quota") || strings.Contains(lt, "billing") ||
		strings.Contains(lm, "exceeded your current quota") || strings.Contains(lm, "credit balance") ||
		strings.Contains(lm, "insufficient credits")
}

func isContextLength(lt, lm string) bool {
	return strings.Contains(lt, "context_length_exceeded") ||
		strings.Contains(lm, "prompt is too long") ||
		strings.Contains(lm, "maximum context length") ||
		strings.Contains(lm, "context length exceeded") ||
		strings.Contains(lm, "context_length_exceeded") ||
		strings.Contains(lm, "context window")
}

// newCutError returns the error for a stream that ended before its end
// marker; cause is the read error or nil for a clean EOF.
func newCutError(provider string, cause error) *APIError {
	msg := "stream ended before its end marker"
	if cause != nil {
		msg = fmt.Sprintf("stream cut: %v", cause)
	}
	return &APIError{Provider: provider, Kind: KindStreamCut, Message: msg, Retryable: true, Err: cause}
}

// isContextErr reports whether err comes from a cancelled or expired context.
func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// isModelNotFound reports whether a failed request's error says the model
// asked for does not exist: Anthropic's 404 not_found_error "model: X",
// OpenAI's code model_not_found, Ollama's "model \"X\" not found".
func isModelNotFound(e *APIError) bool {
	if e.Type == "model_not_found" {
		return true
	}
	if e.StatusCode != 404 {
		return false
	}
	m := strings.ToLower(e.Message)
	return strings.HasPrefix(m, "model:") ||
		strings.Contains(m, "model") && (strings.Contains(m, "not found") || strings.Contains(m, "does not exist"))
}
