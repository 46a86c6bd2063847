package agent_test

import (
	"context"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
)

// TestStreamCutContinued pins the Anthropic continuation of a cut answer:
// the retry sends the printed text, trailing whitespace trimmed, as the
// final assistant message; what streams back is printed after it, and the
// conversation keeps one assistant message holding the whole answer.
// Where the API refuses a prefill (thinking on) the retry is the request
// as it was, and only what extends the printed text is printed.
func TestStreamCutContinued(t *testing.T) {
	t.Parallel()
	cut := func(thinking ...string) llmtest.Turn {
		return llmtest.Turn{Thinking: thinking, Text: []string{"The cause ", "is a ", "race."},
			Fault: &llmtest.Fault{After: 2 + len(thinking), Disconnect: true}}
	}
	tests := map[string]struct {
		turns   []llmtest.Turn
		prefill string // the retry's final assistant message; "": the retry ends with the user's
	}{
		"continued":                  {[]llmtest.Turn{cut(), {Text: []string{"race."}}}, "The cause is a"},
		"continued after whitespace": {[]llmtest.Turn{cut(), {Text: []string{" ", "race."}}}, "The cause is a"},
		"a tool call falls back": {[]llmtest.Turn{{Text: []string{"The cause ", "is a "}, ToolCalls: []llmtest.ToolCall{{Name: "read", Args: []string{"{}"}}},
			Fault: &llmtest.Fault{After: 3, Disconnect: true}}, {Text: []string{"The cause is a race."}}}, ""},
		"thinking on falls back": {[]llmtest.Turn{cut("hmm"), {Thinking: []string{"hmm"}, Text: []string{"The cause is a race."}}}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runLoop(t, context.Background(), llmtest.Script{Turns: tc.turns}, agent.Options{}, nil)
			if r.Err != nil || r.stdout != "The cause is a race.\n" {
				t.Fatalf("err %v stdout %q", r.Err, r.stdout)
			}
			if n := len(r.Kinds(agent.EventStreamCut)); n != 0 {
				t.Errorf("%d stream-cut events", n)
			}
			if len(r.Requests) != 2 {
				t.Fatalf("%d requests", len(r.Requests))
			}
			msgs := r.Requests[1].Messages
			last := msgs[len(msgs)-1]
			switch {
			case tc.prefill != "" && (last.Role != "assistant" || len(last.Content) != 1 || last.Content[0].Text != tc.prefill):
				t.Errorf("retry's last message %+v, want assistant %q", last, tc.prefill)
			case tc.prefill == "" && last.Role != "user":
				t.Errorf("retry's last message %+v, want the user's", last)
			}
			conv := r.Agent.Messages()
			final := conv[len(conv)-1]
			if final.Role != llm.RoleAssistant || final.Text() != "The cause is a race." {
				t.Errorf("final message %+v", final)
			}
		})
	}
}
