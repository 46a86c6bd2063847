package llmtest

import (
	"strings"
	"testing"
	"time"
)

// docScript is the JSON example of the package documentation.
const docScript = `{"turns": [
  {"tool_calls": [{"name": "read", "args": ["{\"pa", "th\":\"a", ".go\"}"]}]},
  {"thinking": ["Let me think."],
   "text": ["Hello", ", world"], "delay": "5ms",
   "usage": {"input_tokens": 12, "output_tokens": 3, "cache_read_tokens": 2}},
  {"fault": {"status": 429, "headers": {"retry-after": "1"}, "type": "rate_limit_error", "message": "slow down"}},
  {"text": ["partial"], "fault": {"after": 1, "disconnect": true}},
  {"text": ["a", "b"], "fault": {"after": 1, "error_event": true, "type": "overloaded_error", "message": "Overloaded"}}
]}`

func TestParseScriptDocExample(t *testing.T) {
	t.Parallel()
	s, err := ParseScript([]byte(docScript))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 5 {
		t.Fatalf("turns = %d", len(s.Turns))
	}
	if got := strings.Join(s.Turns[0].ToolCalls[0].Args, ""); got != `{"path":"a.go"}` {
		t.Errorf("args = %q", got)
	}
	if time.Duration(s.Turns[1].Delay) != 5*time.Millisecond || s.Turns[1].Usage.CacheReadTokens != 2 {
		t.Errorf("turn 2 = %+v", s.Turns[1])
	}
	if f := s.Turns[2].Fault; f.Status != 429 || f.Headers["retry-after"] != "1" {
		t.Errorf("turn 3 fault = %+v", f)
	}
	if f := s.Turns[4].Fault; !f.ErrorEvent || f.After != 1 || f.Type != "overloaded_error" {
		t.Errorf("turn 5 fault = %+v", f)
	}
}

func TestParseScriptErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"unknown field":    {`{"turns":[{"txt":["a"]}]}`, `unknown field "txt"`},
		"not json":         {`turns: []`, "parse script"},
		"trailing data":    {`{"turns":[]} {}`, "data after"},
		"bad duration":     {`{"turns":[{"delay":"soon"}]}`, "duration"},
		"numeric duration": {`{"turns":[{"delay":5}]}`, "duration must be a string"},
		"nameless call":    {`{"turns":[{"tool_calls":[{"args":["{}"]}]}]}`, "turn 1: tool call 1 has no name"},
		"two faults":       {`{"turns":[{},{"fault":{"disconnect":true,"truncate":true}}]}`, "turn 2: fault needs"},
		"no fault":         {`{"turns":[{"fault":{}}]}`, "fault needs"},
		"status and cut":   {`{"turns":[{"fault":{"status":500,"disconnect":true}}]}`, "not both"},
		"ok status":        {`{"turns":[{"fault":{"status":200}}]}`, "not an error status"},
		"negative after":   {`{"turns":[{"fault":{"after":-1,"truncate":true}}]}`, "negative"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseScript([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
