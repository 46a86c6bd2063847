package llmtest

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// requestValidationCase is one case of TestRequestValidation.
type requestValidationCase struct {
	path, body string
	want       string // "" means valid
}

// requestValidationCases returns the cases of TestRequestValidation.
func requestValidationCases(antUse string, oaiCalls string, userHi string, res func(...string) string, tool func(string) string, msgs func(...string) string, params func(string) string) map[string]requestValidationCase {
	return map[string]requestValidationCase{
		"anthropic ok":                    {"/v1/messages", msgs(userHi, antUse, res("a", "b")), ""},
		"anthropic results reordered":     {"/v1/messages", msgs(userHi, antUse, res("b", "a")), ""},
		"anthropic missing result":        {"/v1/messages", msgs(userHi, antUse, res("a")), "without tool_result blocks immediately after: b"},
		"anthropic result twice":          {"/v1/messages", msgs(userHi, antUse, res("a", "a", "b")), `unexpected tool_use_id "a"`},
		"anthropic unknown result":        {"/v1/messages", msgs(userHi, antUse, res("a", "b", "c")), `unexpected tool_use_id "c"`},
		"anthropic results too late":      {"/v1/messages", msgs(userHi, antUse, userHi, res("a", "b")), "without tool_result"},
		"anthropic ends with tool_use":    {"/v1/messages", msgs(userHi, antUse), "have no tool_result blocks: a, b"},
		"anthropic non-object input":      {"/v1/messages", msgs(userHi, `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"ls","input":"{\"x"}]}`, res("a")), "input must be a JSON object"},
		"anthropic empty text":            {"/v1/messages", msgs(`{"role":"user","content":[{"type":"text","text":""}]}`), "must be non-empty"},
		"anthropic prefill":               {"/v1/messages", msgs(userHi, `{"role":"assistant","content":[{"type":"text","text":"The cause is a"}]}`), ""},
		"anthropic prefill whitespace":    {"/v1/messages", msgs(userHi, `{"role":"assistant","content":[{"type":"text","text":"The cause is a "}]}`), "final assistant content cannot end with trailing whitespace"},
		"anthropic whitespace not final":  {"/v1/messages", msgs(userHi, `{"role":"assistant","content":[{"type":"text","text":"a "}]}`, userHi), ""},
		"anthropic blank text":            {"/v1/messages", msgs(`{"role":"user","content":[{"type":"text","text":" \n"}]}`), "must contain non-whitespace text"},
		"anthropic empty message":         {"/v1/messages", msgs(userHi, `{"role":"assistant","content":[]}`, userHi), "messages.1: all messages must have non-empty content"},
		"anthropic empty final assistant": {"/v1/messages", msgs(userHi, `{"role":"assistant","content":""}`), ""},
		"anthropic empty error result":    {"/v1/messages", msgs(userHi, antUse, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","is_error":true,"content":""},{"type":"tool_result","tool_use_id":"b","is_error":true}]}`), "content cannot be empty if `is_error` is true"},
		"anthropic empty result":          {"/v1/messages", msgs(userHi, antUse, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":""},{"type":"tool_result","tool_use_id":"b"}]}`), ""},
		"anthropic unsigned thinking":     {"/v1/messages", msgs(userHi, `{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":""},{"type":"text","text":"x"}]}`, userHi), "signature: Field required"},
		"anthropic not streaming":         {"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`, `"stream" is not true`},
		"no messages":                     {"/v1/messages", `{"stream":true,"messages":[]}`, "messages: empty"},
		"anthropic no max_tokens":         {"/v1/messages", params(`"temperature":0.5`), "max_tokens: Field required"},
		"anthropic thinking ok":           {"/v1/messages", params(`"max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024}`), ""},
		"anthropic budget too small":      {"/v1/messages", params(`"max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":512}`), "greater than or equal to 1024"},
		"anthropic budget not below":      {"/v1/messages", params(`"max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":2048}`), "max_tokens must be greater than thinking.budget_tokens"},
		"anthropic thinking temperature":  {"/v1/messages", params(`"max_tokens":4096,"temperature":0.2,"thinking":{"type":"enabled","budget_tokens":1024}`), "temperature may only be set to 1"},
		"anthropic five cache breakpoints": {"/v1/messages", `{"model":"x","max_tokens":9,"stream":true,"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[` +
			strings.Repeat(`{"type":"text","text":"\"cache_control\"","cache_control":{"type":"ephemeral"}},`, 4) + `{"type":"text","text":"x"}]}]}`, "A maximum of 4 blocks with cache_control"},
		"anthropic four cache breakpoints": {"/v1/messages", `{"model":"x","max_tokens":9,"stream":true,"messages":[{"role":"user","content":[` +
			strings.Repeat(`{"type":"text","text":"\"cache_control\"","cache_control":{"type":"ephemeral"}},`, 4) + `{"type":"text","text":"x"}]}]}`, ""},
		"anthropic temperature alone":   {"/v1/messages", params(`"max_tokens":4096,"temperature":0.2`), ""},
		"not json":                      {"/chat/completions", `{"stream":`, "not a JSON object"},
		"openai ok":                     {"/chat/completions", msgs(userHi, oaiCalls, tool("a"), tool("b"), userHi), ""},
		"openai missing tool message":   {"/chat/completions", msgs(userHi, oaiCalls, tool("a"), userHi), "missing: b"},
		"openai stray tool message":     {"/chat/completions", msgs(userHi, tool("a")), "must be a response to a preceding"},
		"openai ends with tool calls":   {"/chat/completions", msgs(userHi, oaiCalls), "have no tool messages: a, b"},
		"openai tool after user":        {"/chat/completions", msgs(userHi, oaiCalls, tool("a"), userHi, tool("b")), "missing: b"},
		"openai duplicate tool message": {"/chat/completions", msgs(userHi, oaiCalls, tool("a"), tool("a"), tool("b")), `tool_call_id "a"`},
	}
}

// responsesValidationCases returns the Responses API cases of
// TestRequestValidation.
func responsesValidationCases() map[string]requestValidationCase {
	input := func(items ...string) string {
		return `{"model":"x","stream":true,"store":false,"input":[` + strings.Join(items, ",") + `]}`
	}
	const rUser = `{"type":"message","role":"user","content":"hi"}`
	rCall := func(id string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"ls","arguments":"{}"}`
	}
	rOut := func(id string) string { return `{"type":"function_call_output","call_id":"` + id + `","output":"ok"}` }
	rReason := func(enc string) string {
		return `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"` + enc + `"}`
	}
	return map[string]requestValidationCase{
		"responses ok":             {"/v1/responses", input(rUser, rReason("enc"), rCall("a"), rCall("b"), rOut("a"), rOut("b"), rUser), ""},
		"responses string input":   {"/responses", `{"model":"x","stream":true,"input":"hi"}`, ""},
		"responses empty input":    {"/v1/responses", input(), "input: empty"},
		"responses missing output": {"/v1/responses", input(rUser, rCall("a"), rCall("b"), rOut("a")), "no tool output found for function call b"},
		"responses stray output":   {"/v1/responses", input(rUser, rOut("a")), "no tool call found for function call output with call_id a"},
		"responses output twice":   {"/v1/responses", input(rUser, rCall("a"), rOut("a"), rOut("a")), "call_id a"},
		"responses unencrypted reasoning": {"/v1/responses", input(rUser, rReason(""), rCall("a"), rOut("a")),
			"items are not persisted when store is false"},
		"responses trailing reasoning": {"/v1/responses", input(rUser, rReason("enc")), "without its required following item"},
		"responses not streaming":      {"/v1/responses", `{"model":"x","input":"hi"}`, `"stream" is not true`},
	}
}

func TestRequestValidation(t *testing.T) {
	t.Parallel()
	const (
		antUse    = `{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"a","name":"ls","input":{}},{"type":"tool_use","id":"b","name":"ls","input":{}}]}`
		oaiCalls  = `{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"ls","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"ls","arguments":"{}"}}]}`
		userHi    = `{"role":"user","content":"hi"}`
		antResult = `{"type":"tool_result","tool_use_id":"%s","content":"ok"}`
	)
	res := func(ids ...string) string {
		var parts []string
		for _, id := range ids {
			parts = append(parts, strings.Replace(antResult, "%s", id, 1))
		}
		return `{"role":"user","content":[` + strings.Join(parts, ",") + `]}`
	}
	tool := func(id string) string { return `{"role":"tool","tool_call_id":"` + id + `","content":"ok"}` }
	msgs := func(m ...string) string {
		return `{"model":"x","max_tokens":100,"stream":true,"messages":[` + strings.Join(m, ",") + `]}`
	}
	params := func(p string) string {
		return `{"model":"x","stream":true,` + p + `,"messages":[` + userHi + `]}`
	}
	tests := requestValidationCases(antUse, oaiCalls, userHi, res, tool, msgs, params)
	maps.Copy(tests, responsesValidationCases())
	maps.Copy(tests, formatValidationCases())
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := NewServer(Script{Turns: []Turn{{Text: []string{"ok"}}}})
			defer srv.Close()
			resp, body := post(t, srv.URL()+tc.path, tc.body)
			if tc.want == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("valid request rejected: %d %s", resp.StatusCode, body)
				}
				return
			}
			var e struct {
				Error struct{ Type, Message string }
			}
			_ = json.Unmarshal([]byte(body), &e)
			if resp.StatusCode != 400 || !strings.Contains(e.Error.Message, tc.want) || e.Error.Type != "invalid_request_error" {
				t.Fatalf("got %d %s, want 400 with %q", resp.StatusCode, body, tc.want)
			}
			// The rejected request used up no turn: a valid one still gets it.
			req := antReq
			switch {
			case strings.HasSuffix(tc.path, "/responses"):
				req = respReq
			case tc.path != "/v1/messages":
				req = oaiReq
			}
			if resp, body := post(t, srv.URL()+tc.path, req); resp.StatusCode != 200 || !strings.Contains(body, `"ok"`) {
				t.Errorf("turn used up by the invalid request: %d %s", resp.StatusCode, body)
			}
		})
	}
}
