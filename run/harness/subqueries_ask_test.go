package harness

import (
	"context"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
)

// TestSubqueryAsk: a sub-query's request in a run retries transient
// failures and reports the usage of every attempt, the failed ones
// included; a permanent failure is not retried and still reports what was
// spent. (run's TestDirectAskerAsk checks the same of rubichan query
// outside a run.)
func TestSubqueryAsk(t *testing.T) {
	t.Parallel()
	ok := llmtest.Turn{Text: []string{"An", "swer"}, Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 3}}
	// The failed attempt reports the 5 input tokens and the 1 output token
	// of its message_start.
	overloaded := llmtest.Turn{Usage: llmtest.Usage{InputTokens: 5}, Fault: &llmtest.Fault{ErrorEvent: true, Type: "overloaded_error", Message: "Overloaded"}}
	denied := llmtest.Turn{Fault: &llmtest.Fault{Status: 401, Type: "authentication_error", Message: "bad key"}}
	tests := []struct {
		name     string
		turns    []llmtest.Turn
		text     string
		in, out  int
		requests int
		err      string
	}{
		{name: "run: retried, every attempt counted", turns: []llmtest.Turn{overloaded, ok}, text: "Answer", in: 15, out: 4, requests: 2},
		{name: "run: permanent", turns: []llmtest.Turn{overloaded, denied, ok}, in: 5, out: 1, requests: 2, err: "bad key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Script{Turns: tc.turns})
			defer srv.Close()
			client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "sk-test"})
			var (
				text string
				used llm.Usage
				msg  string
			)
			svc := &Subqueries{client: client, clock: agenttest.FakeClock{},
				retry: llm.RetryPolicy{MaxAttempts: 3, Jitter: func(time.Duration) time.Duration { return 0 }}}
			var err error
			text, used, err = svc.ask(context.Background(), llm.Request{Model: "claude-test", MaxTokens: 64,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("hi")}}}})
			if err != nil {
				msg = err.Error()
			}
			if text != tc.text || used.InputTokens != tc.in || used.OutputTokens != tc.out {
				t.Errorf("text %q, usage %d in %d out; want %q, %d in %d out", text, used.InputTokens, used.OutputTokens, tc.text, tc.in, tc.out)
			}
			if (tc.err == "") != (msg == "") || !strings.Contains(msg, tc.err) {
				t.Errorf("error %q, want one containing %q", msg, tc.err)
			}
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}
