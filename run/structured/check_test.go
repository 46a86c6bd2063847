package structured

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	s := mustParse(t, triage)
	type step struct {
		final    agent.Final
		passed   bool
		feedback string // a part of it
		stop     bool
	}
	tests := map[string]struct {
		tool  bool
		steps []step
		out   string
	}{
		"native valid, spaces dropped": {steps: []step{{final: agent.Final{Text: "\n{\"label\": \"flaky\"}\n"}, passed: true}}, out: `{"label":"flaky"}`},
		"native corrected on retry": {steps: []step{
			{final: agent.Final{Text: `{"label":"nope"}`}, feedback: "/label: enum:"},
			{final: agent.Final{Text: `{"label":"bug"}`}, passed: true},
		}, out: `{"label":"bug"}`},
		"retries exhausted": {steps: []step{
			{final: agent.Final{Text: `not json`}, feedback: "retry 1 of 2"},
			{final: agent.Final{Text: `{}`}, feedback: "retry 2 of 2"},
			{final: agent.Final{Text: `{}`}, stop: true},
		}},
		"tool call": {tool: true, steps: []step{{final: agent.Final{Tool: ToolName, Input: json.RawMessage(`{"label":"infra","confidence":1}`)}, passed: true}},
			out: `{"label":"infra","confidence":1}`},
		"text where the tool was wanted": {tool: true, steps: []step{
			{final: agent.Final{Text: `{"label":"bug"}`}, feedback: "call the respond tool"},
			{final: agent.Final{Tool: ToolName, Input: json.RawMessage(`{"label":"bug"}`)}, passed: true},
		}, out: `{"label":"bug"}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := NewCheck(s, CheckOptions{Retries: 2, Tool: tc.tool})
			for i, st := range tc.steps {
				v, err := c.Verify(context.Background(), i+1, st.final)
				if err != nil {
					t.Fatal(err)
				}
				if v.Passed != st.passed || !strings.Contains(v.Feedback, st.feedback) || (v.Stop != nil) != st.stop {
					t.Errorf("step %d: %+v", i+1, v)
				}
				var ce *agent.CheckError
				if st.stop && (!errors.As(v.Stop, &ce) || ce.Check != CheckName || !errors.Is(v.Stop, ErrNoMatch)) {
					t.Errorf("step %d: stop %v is not the json-schema check", i+1, v.Stop)
				}
			}
			if string(c.Output()) != tc.out {
				t.Errorf("Output = %s, want %s", c.Output(), tc.out)
			}
		})
	}
}
