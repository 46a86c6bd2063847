package sink

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

// TestTextSinkStructured: with --json-schema, stdout holds the answer
// alone on one line at the end, in text and final modes alike; the
// model's prose never; nothing when the run has no answer.
func TestTextSinkStructured(t *testing.T) {
	t.Parallel()
	delta := agent.Event{Kind: agent.EventTextDelta, Text: "Let me look."}
	done := agent.Event{Kind: agent.EventMessageDone, Text: "Let me look."}
	answer := &agent.Summary{StructuredOutput: json.RawMessage(`{"label":"flaky"}`)}
	tests := map[string]struct {
		final bool
		sum   *agent.Summary
		want  string
	}{
		"text":             {sum: answer, want: "{\"label\":\"flaky\"}\n"},
		"final":            {final: true, sum: answer, want: "{\"label\":\"flaky\"}\n"},
		"no answer":        {sum: &agent.Summary{}, want: ""},
		"final, no answer": {final: true, sum: &agent.Summary{}, want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			s := NewText(&b, TextOptions{Final: tc.final, Structured: true})
			for _, ev := range []agent.Event{delta, done, {Kind: agent.EventStreamCut}, {Kind: agent.EventTurnDone, Summary: tc.sum}} {
				s.Handle(ev)
			}
			if b.String() != tc.want {
				t.Errorf("stdout = %q, want %q", b.String(), tc.want)
			}
		})
	}
}
