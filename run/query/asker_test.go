package query

import (
	"context"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/subquery"
)

// TestDirectAskerAsk: a sub-query's request alone (rubichan query outside
// a run) retries transient failures and reports the usage of every
// attempt, the failed ones included; a permanent failure is not retried
// and still reports what was spent. (harness's TestSubqueryAsk checks the
// same in a run.)
func TestDirectAskerAsk(t *testing.T) {
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
		{name: "alone: retried, every attempt counted", turns: []llmtest.Turn{overloaded, ok}, text: "Answer", in: 15, out: 4, requests: 2},
		{name: "alone: permanent", turns: []llmtest.Turn{denied, ok}, requests: 1, err: "model request failed: "},
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
			d := &directAsker{model: "claude-test", client: client}
			resp, err := d.ask(context.Background(), subquery.Request{Input: "material", Prompt: "sum it up"})
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			text, used = resp.Text, llm.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}
			if resp.Error != nil {
				msg = resp.Error.Message
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
