package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
)

// clock makes retry waits instant and records them. When cancel is set,
// the first wait cancels the context with errWaitCancelled instead.
type clock struct {
	mu     sync.Mutex
	waits  []time.Duration
	cancel context.CancelCauseFunc
}

var errWaitCancelled = errors.New("cancelled while waiting")

func (c *clock) Now() time.Time { return time.Unix(0, 0) }

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	if c.cancel != nil {
		c.cancel(errWaitCancelled)
	}
	return ctx.Err()
}

// record is what the callbacks of one Complete call saw.
type record struct {
	events   []string    // "text:Hel", "thinking:hm"
	attempts []llm.Usage // OnAttempt's usage, in order
	errs     []error     // OnAttempt's error, in order
	retries  []llm.RetryNotice
}

func usage(in, out int) llmtest.Usage { return llmtest.Usage{InputTokens: in, OutputTokens: out} }

func apiStatus(err error) int {
	var ae *llm.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

func TestComplete(t *testing.T) {
	t.Parallel()
	ok := llmtest.Turn{Thinking: []string{"hm"}, Text: []string{"Hel", "lo"}, Usage: usage(10, 3)}
	rate := llmtest.Turn{Fault: &llmtest.Fault{Status: 429, Headers: map[string]string{"retry-after": "2"}, Type: "rate_limit_error", Message: "slow down"}}
	overloaded := llmtest.Turn{Fault: &llmtest.Fault{Status: 529, Type: "overloaded_error", Message: "Overloaded"}}
	server500 := llmtest.Turn{Fault: &llmtest.Fault{Status: 500, Type: "api_error", Message: "boom"}}
	cut := llmtest.Turn{Text: []string{"par", "tial"}, Usage: usage(7, 1), Fault: &llmtest.Fault{After: 1, Disconnect: true}}
	errEvent := llmtest.Turn{Usage: usage(5, 0), Fault: &llmtest.Fault{ErrorEvent: true, Type: "overloaded_error", Message: "Overloaded"}}
	denied := llmtest.Turn{Fault: &llmtest.Fault{Status: 401, Type: "authentication_error", Message: "bad key"}}
	invalid := llmtest.Turn{Fault: &llmtest.Fault{Status: 400, Type: "invalid_request_error", Message: "no"}}
	errBudget := errors.New("budget: spent")
	afterPrint := func(err error) bool {
		var ae *llm.APIError
		return llm.IsRetryable(err) || errors.As(err, &ae) && ae.Partial && ae.Retryable
	}

	tests := []struct {
		name      string
		turns     []llmtest.Turn
		retryable func(error) bool
		maxTries  int
		onAttempt func(llm.Usage, error) error
		// want
		requests int
		text     string
		errSub   string // "" means success
		errIs    error
		status   int // the returned error's HTTP status
		retries  []int
		waits    []time.Duration
		attempts int // OnAttempt calls
		events   string
	}{
		{name: "first attempt", turns: []llmtest.Turn{ok}, requests: 1, text: "Hello", attempts: 1,
			events: "thinking:hm text:Hel text:lo"},
		{name: "429 then answer", turns: []llmtest.Turn{rate, ok}, requests: 2, text: "Hello", retries: []int{429},
			waits: []time.Duration{2 * time.Second}, attempts: 1, events: "thinking:hm text:Hel text:lo"},
		{name: "529 and 500 then answer", turns: []llmtest.Turn{overloaded, server500, ok}, requests: 3, text: "Hello",
			retries: []int{529, 500}, waits: []time.Duration{0, 0}, attempts: 1, events: "thinking:hm text:Hel text:lo"},
		{name: "error event before content", turns: []llmtest.Turn{errEvent, ok}, requests: 2, text: "Hello",
			retries: []int{0}, waits: []time.Duration{0}, attempts: 2, events: "thinking:hm text:Hel text:lo"},
		{name: "stream cut after text is final by default", turns: []llmtest.Turn{cut, ok}, requests: 1,
			errSub: "", status: 0, attempts: 1, events: "text:par", errIs: errPartial},
		{name: "stream cut after text retried when the caller prints again", turns: []llmtest.Turn{cut, ok}, retryable: afterPrint,
			requests: 2, text: "Hello", retries: []int{0}, waits: []time.Duration{0}, attempts: 2,
			events: "text:par thinking:hm text:Hel text:lo"},
		{name: "401 is permanent", turns: []llmtest.Turn{denied, ok}, requests: 1, status: 401, errSub: "bad key"},
		{name: "400 is permanent", turns: []llmtest.Turn{invalid, ok}, requests: 1, status: 400, errSub: "no"},
		{name: "gives up after the attempts", turns: []llmtest.Turn{rate, overloaded, rate, ok}, maxTries: 3, requests: 3,
			status: 429, errSub: "llm: giving up after 3 attempts", retries: []int{429, 529},
			waits: []time.Duration{2 * time.Second, 0}},
		{name: "OnAttempt ends retrying", turns: []llmtest.Turn{errEvent, ok}, requests: 1, errIs: errBudget, attempts: 1,
			onAttempt: func(u llm.Usage, err error) error {
				if err != nil {
					return errBudget
				}
				return nil
			}},
		{name: "OnAttempt ends retrying with a retryable error", turns: []llmtest.Turn{errEvent, ok}, requests: 1, attempts: 1,
			status: 429, errSub: "again",
			onAttempt: func(u llm.Usage, err error) error {
				if err != nil {
					return &llm.APIError{StatusCode: 429, Kind: llm.KindRateLimit, Retryable: true, Message: "again"}
				}
				return nil
			}},
		{name: "OnAttempt refuses a success", turns: []llmtest.Turn{ok, ok}, requests: 1, errIs: errBudget, attempts: 1,
			events: "thinking:hm text:Hel text:lo", onAttempt: func(llm.Usage, error) error { return errBudget }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Script{Turns: tc.turns})
			defer srv.Close()
			clk := &clock{}
			client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "sk-test", Clock: clk})
			policy := llm.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond,
				Retryable: tc.retryable, Jitter: func(time.Duration) time.Duration { return 0 }}
			if tc.maxTries > 0 {
				policy.MaxAttempts = tc.maxTries
			}
			var rec record
			opts := agent.CompleteOptions{Retry: policy, Clock: clk,
				OnEvent: func(ev llm.Event) {
					if ev.Kind == llm.EventText || ev.Kind == llm.EventThinking {
						rec.events = append(rec.events, ev.Kind.String()+":"+ev.Text)
					}
				},
				OnRetry: func(n llm.RetryNotice) { rec.retries = append(rec.retries, n) },
				OnAttempt: func(u llm.Usage, err error) error {
					rec.attempts, rec.errs = append(rec.attempts, u), append(rec.errs, err)
					if tc.onAttempt != nil {
						return tc.onAttempt(u, err)
					}
					return nil
				}}
			req := llm.Request{Model: "claude-test", MaxTokens: 64,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("hi")}}}}
			got, err := agent.Complete(context.Background(), client, req, opts)

			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("requests = %d, want %d", n, tc.requests)
			}
			switch {
			case tc.errIs == errPartial:
				var ae *llm.APIError
				if !errors.As(err, &ae) || !ae.Partial {
					t.Errorf("err = %v, want a partial stream error", err)
				}
			case tc.errIs != nil:
				if err != tc.errIs {
					t.Errorf("err = %#v, want exactly %v (not wrapped)", err, tc.errIs)
				}
			case tc.errSub != "":
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Errorf("err = %v, want it to contain %q", err, tc.errSub)
				}
				if s := apiStatus(err); s != tc.status {
					t.Errorf("err status = %d, want %d", s, tc.status)
				}
			default:
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if txt := got.Message.Text(); txt != tc.text {
					t.Errorf("text = %q, want %q", txt, tc.text)
				}
				if got.Stop != llm.StopEndTurn {
					t.Errorf("stop = %q, want end_turn", got.Stop)
				}
			}
			if err != nil && (got.Message.Text() != "" || got.Usage != (llm.Usage{})) {
				t.Errorf("a failed Complete returned message %q, usage %+v", got.Message.Text(), got.Usage)
			}

			var statuses []int
			for i, n := range rec.retries {
				statuses = append(statuses, apiStatus(n.Err))
				if n.Attempt != i+1 {
					t.Errorf("retry %d: Attempt = %d, want %d", i, n.Attempt, i+1)
				}
				if n.Err == nil {
					t.Errorf("retry %d: no error to report", i)
				}
			}
			if !equal(statuses, tc.retries) {
				t.Errorf("retried after statuses %v, want %v", statuses, tc.retries)
			}
			var noticed []time.Duration
			for _, n := range rec.retries {
				noticed = append(noticed, n.Wait)
			}
			if !equal(noticed, tc.waits) || !equal(clk.waits, tc.waits) {
				t.Errorf("waits noticed %v, slept %v, want %v", noticed, clk.waits, tc.waits)
			}
			if len(rec.attempts) != tc.attempts {
				t.Errorf("OnAttempt called %d times, want %d (once per stream that opened)", len(rec.attempts), tc.attempts)
			}
			if ev := strings.Join(rec.events, " "); ev != tc.events {
				t.Errorf("events = %q, want %q", ev, tc.events)
			}

			// Total is every attempt's usage; Usage the successful one's.
			var total llm.Usage
			for _, u := range rec.attempts {
				total = total.Add(u)
			}
			if got.Total != total {
				t.Errorf("Total = %+v, want %+v (the sum of the attempts)", got.Total, total)
			}
			if err == nil {
				last := rec.attempts[len(rec.attempts)-1]
				if got.Usage != last || rec.errs[len(rec.errs)-1] != nil {
					t.Errorf("Usage = %+v, want the last attempt's %+v", got.Usage, last)
				}
				if got.Usage.InputTokens != 10 || got.Usage.OutputTokens != 3 {
					t.Errorf("Usage = %+v, want the scripted 10 in, 3 out", got.Usage)
				}
			}
		})
	}
}

// errPartial marks a case that must end with the partial stream error.
var errPartial = errors.New("partial")

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCompleteContext(t *testing.T) {
	t.Parallel()
	errStop := errors.New("run stopped")
	slow := llmtest.Turn{Text: []string{"a", "b", "c", "d"}, Delay: llmtest.Duration(time.Second)}
	rate := llmtest.Turn{Fault: &llmtest.Fault{Status: 429, Type: "rate_limit_error", Message: "slow down"}}
	ok := llmtest.Turn{Text: []string{"never"}}
	tests := []struct {
		name     string
		turns    []llmtest.Turn
		inWait   bool // cancel in the retry wait, not during the stream
		want     error
		requests int
	}{
		{name: "cancelled during the stream", turns: []llmtest.Turn{slow, ok}, want: errStop, requests: 1},
		{name: "cancelled in the wait before a retry", turns: []llmtest.Turn{rate, ok}, inWait: true, want: errWaitCancelled, requests: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Script{Turns: tc.turns})
			defer srv.Close()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			clk := &clock{}
			if tc.inWait {
				clk.cancel = cancel
			} else {
				timer := time.AfterFunc(50*time.Millisecond, func() { cancel(errStop) })
				defer timer.Stop()
			}
			client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "sk-test"})
			retries := 0
			start := time.Now()
			_, err := agent.Complete(ctx, client, llm.Request{Model: "m", MaxTokens: 8,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("hi")}}}},
				agent.CompleteOptions{Retry: llm.RetryPolicy{MaxAttempts: 5}, Clock: clk,
					OnRetry: func(llm.RetryNotice) { retries++ }})
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want the context's cause %v", err, tc.want)
			}
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("requests = %d, want %d", n, tc.requests)
			}
			if tc.inWait && retries != 1 || !tc.inWait && retries != 0 {
				t.Errorf("OnRetry called %d times", retries)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Complete took %v after the cancellation", d)
			}
		})
	}
}
