package harness

import (
	"context"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent/agenttest"
)

// TestSubqueryAsk: a sub-query's request in a run retries transient
// failures and reports the usage of every attempt, the failed ones
// included; a permanent failure is not retried and still reports what was
// spent. (run's TestDirectAskerAsk checks the same of rubichan query
// outside a run.)
func TestSubqueryAsk(t *testing.T) {
	t.Parallel()
	ok, overloaded, denied := agenttest.AskTurns()
	tests := []agenttest.AskCase{
		{Name: "run: retried, every attempt counted", Turns: []llmtest.Turn{overloaded, ok}, Text: "Answer", In: 15, Out: 4, Requests: 2},
		{Name: "run: permanent", Turns: []llmtest.Turn{overloaded, denied, ok}, In: 5, Out: 1, Requests: 2, Err: "bad key"},
	}
	agenttest.RunAskCases(t, tests, func(t *testing.T, client *llm.AnthropicClient) (text string, used llm.Usage, msg string) {
		svc := &Subqueries{client: client, clock: agenttest.FakeClock{},
			retry: llm.RetryPolicy{MaxAttempts: 3, Jitter: func(time.Duration) time.Duration { return 0 }}}
		var err error
		text, used, err = svc.ask(context.Background(), llm.Request{Model: "claude-test", MaxTokens: 64,
			Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("hi")}}}})
		if err != nil {
			msg = err.Error()
		}
		return text, used, msg
	})
}
