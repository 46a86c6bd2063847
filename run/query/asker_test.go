package query

import (
	"context"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/run/subquery"
)

// TestDirectAskerAsk: a sub-query's request alone (rubichan query outside
// a run) retries transient failures and reports the usage of every
// attempt, the failed ones included; a permanent failure is not retried
// and still reports what was spent. (harness's TestSubqueryAsk checks the
// same in a run.)
func TestDirectAskerAsk(t *testing.T) {
	t.Parallel()
	ok, overloaded, denied := agenttest.AskTurns()
	tests := []agenttest.AskCase{
		{Name: "alone: retried, every attempt counted", Turns: []llmtest.Turn{overloaded, ok}, Text: "Answer", In: 15, Out: 4, Requests: 2},
		{Name: "alone: permanent", Turns: []llmtest.Turn{denied, ok}, Requests: 1, Err: "model request failed: "},
	}
	agenttest.RunAskCases(t, tests, func(t *testing.T, client *llm.AnthropicClient) (text string, used llm.Usage, msg string) {
		d := &directAsker{model: "claude-test", client: client}
		resp, err := d.ask(context.Background(), subquery.Request{Input: "material", Prompt: "sum it up"})
		if err != nil {
			t.Fatalf("err = %v", err)
		}
		text, used = resp.Text, llm.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}
		if resp.Error != nil {
			msg = resp.Error.Message
		}
		return text, used, msg
	})
}
