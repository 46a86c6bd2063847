package agent_test

import (
	"context"
	"testing"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
)

// TestMessageDoneResponse: each agent.EventMessageDone says which
// response the provider made and the model that made it, as the stream
// said (the scripted server names its responses msg_llmtest_N and
// answers with the model asked), one per request.
func TestMessageDoneResponse(t *testing.T) {
	t.Parallel()
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{agenttest.Call("a", "nosuch", `{}`)}},
		{Text: []string{"done"}},
	}}, agent.Options{}, nil)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	done := r.Kinds(agent.EventMessageDone)
	if len(done) != 2 {
		t.Fatalf("%d agent.EventMessageDone, want 2", len(done))
	}
	for i, ev := range done {
		if ev.Response == nil || ev.Response.ID == "" || ev.Response.Model != "test-model" {
			t.Errorf("message %d: response %+v, want an id and model test-model (agenttest's)", i, ev.Response)
		}
	}
	if done[0].Response != nil && done[1].Response != nil && done[0].Response.ID == done[1].Response.ID {
		t.Errorf("both messages name response %q", done[0].Response.ID)
	}
}
