package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/toolkit"
)

// answerCheck is a Verifier that records the final answers it saw and
// fails the first `fails` of them with feedback.
type answerCheck struct {
	seen  []agent.Final
	fails int
}

func (c *answerCheck) Verify(_ context.Context, attempt int, f agent.Final) (agent.Verification, error) {
	c.seen = append(c.seen, f)
	if attempt <= c.fails {
		return agent.Verification{Feedback: "bad answer: /label is required"}, nil
	}
	return agent.Verification{Passed: true}, nil
}

var respondSpec = toolkit.Spec{Name: "respond", Description: "Give the final answer.",
	Schema: json.RawMessage(`{"type":"object","properties":{"label":{"type":"string"}}}`)}

// TestFinalTool: a call to the final tool is the run's final answer — not
// judged (a judge that denies all does not stop it), answered with a
// result in the conversation, calls after it not run, checked by the
// verifiers, and no request follows a call that passed; a failed check
// sends the model back with the feedback.
func TestFinalTool(t *testing.T) {
	t.Parallel()
	allow := agenttest.JudgeBy(nil, nil)
	tests := map[string]struct {
		turns    []llmtest.Turn
		fails    int
		requests int
		inputs   []string
		results  []string // tool results of the last conversation message
		feedback string   // the last request's last text
	}{
		"valid call ends the run": {
			turns:    []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "respond", `{"label":"flaky"}`)}}},
			requests: 1, inputs: []string{`{"label":"flaky"}`},
			results: []string{"c1 ok: " + agent.FinalRecorded},
		},
		"calls after it are not run": {
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{
				agenttest.Call("c1", "read", `{"path":"a"}`),
				agenttest.Call("c2", "respond", `{"label":"x"}`),
				agenttest.Call("c3", "read", `{"path":"b"}`)}}},
			requests: 1, inputs: []string{`{"label":"x"}`},
			results: []string{"c1 ok: ran read {\"path\":\"a\"}", "c2 ok: " + agent.FinalRecorded, "c3 error: Not run: the run ended with respond."},
		},
		"failed check sends the model back": {
			turns: []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "respond", `{}`)}},
				{ToolCalls: []llmtest.ToolCall{agenttest.Call("c2", "respond", `{"label":"y"}`)}},
			},
			fails: 1, requests: 2, inputs: []string{`{}`, `{"label":"y"}`},
			results:  []string{"c2 ok: " + agent.FinalRecorded},
			feedback: "bad answer: /label is required",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			check := &answerCheck{fails: tc.fails}
			read := &agenttest.FakeTool{Name: "read"}
			judge := func(tool string, e toolkit.Effects) agent.Verdict {
				if tool == "respond" {
					return agent.Verdict{Kind: agent.VerdictDeny, Reason: "the judge saw the final tool"}
				}
				return allow(tool, e)
			}
			r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: tc.turns},
				agent.Options{FinalTool: respondSpec, Verifiers: []agent.Verifier{check}, Judge: judge}, read)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if len(r.Requests) != tc.requests {
				t.Fatalf("requests = %d, want %d", len(r.Requests), tc.requests)
			}
			if got := r.Requests[0].Tools; len(got) != 2 || got[1].Name != "respond" {
				t.Errorf("tools offered = %+v, want read and respond", got)
			}
			var inputs []string
			for _, f := range check.seen {
				if f.Tool != "respond" {
					t.Errorf("Final.Tool = %q, want respond", f.Tool)
				}
				inputs = append(inputs, string(f.Input))
			}
			if strings.Join(inputs, "|") != strings.Join(tc.inputs, "|") {
				t.Errorf("final inputs = %q, want %q", inputs, tc.inputs)
			}
			msgs := r.Agent.Messages()
			last := msgs[len(msgs)-1]
			var results []string
			for _, b := range last.Content {
				if b.Kind == llm.BlockToolResult {
					mark := "ok"
					if b.IsError {
						mark = "error"
					}
					results = append(results, b.ToolUseID+" "+mark+": "+b.Content)
				}
			}
			if last.Role != llm.RoleUser || strings.Join(results, "|") != strings.Join(tc.results, "|") {
				t.Errorf("last message results = %q, want %q", results, tc.results)
			}
			if tc.feedback != "" && r.Requests[1].Messages[2].Content[1].Text != tc.feedback {
				t.Errorf("second request's feedback = %+v, want %q", r.Requests[1].Messages[2].Content, tc.feedback)
			}
		})
	}
}

// TestFinalToolStop: a check that gives up ends the run with its error.
func TestFinalToolStop(t *testing.T) {
	t.Parallel()
	stop := &agent.CheckError{Check: "json-schema", Err: errors.New("the answer did not match --json-schema")}
	r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "respond", `{}`)}},
	}}, agent.Options{FinalTool: respondSpec, Verifiers: []agent.Verifier{stopCheck{stop}}})
	if !errors.Is(r.Err, stop) {
		t.Fatalf("Err = %v, want the check's stop", r.Err)
	}
	if len(r.Requests) != 1 {
		t.Errorf("requests = %d, want 1", len(r.Requests))
	}
}

type stopCheck struct{ err error }

func (s stopCheck) Verify(context.Context, int, agent.Final) (agent.Verification, error) {
	return agent.Verification{Stop: s.err}, nil
}

// TestFormatSent: Options.Format rides on every request in the wire's
// native form.
func TestFormatSent(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false}`
	r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "read", `{}`)}},
		{Text: []string{`{"label":"x"}`}},
	}}, agent.Options{Format: &llm.JSONFormat{Name: "answer", Schema: json.RawMessage(schema)}}, &agenttest.FakeTool{Name: "read"})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for i, req := range r.Raw {
		var body struct {
			OutputConfig struct {
				Format struct {
					Type   string          `json:"type"`
					Schema json.RawMessage `json:"schema"`
				} `json:"format"`
			} `json:"output_config"`
		}
		if err := req.JSON(&body); err != nil {
			t.Fatal(err)
		}
		if body.OutputConfig.Format.Type != "json_schema" || string(body.OutputConfig.Format.Schema) != schema {
			t.Errorf("request %d output_config = %+v", i+1, body.OutputConfig)
		}
	}
}

// TestSetStructured: between runs (line mode's /schema) the final tool
// and the format are switched on, then off again.
func TestSetStructured(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "respond", `{"label":"x"}`)}},
		{Text: []string{"plain"}},
	}})
	defer srv.Close()
	a := agent.New(llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "k"}), agent.Options{
		Model: "m", Limits: agent.Limits{MaxTurns: 3}, Tools: []toolkit.Tool{&agenttest.FakeTool{Name: "read"}},
		Judge: agenttest.JudgeBy(nil, nil), Emit: func(agent.Event) {}})
	a.SetStructured(&llm.JSONFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object","additionalProperties":false}`)}, respondSpec)
	if err := a.Run(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	a.SetStructured(nil, toolkit.Spec{})
	if err := a.Run(context.Background(), "two"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	for i, want := range []struct {
		tools  string
		format bool
	}{{"read respond", true}, {"read", false}} {
		var body struct {
			Tools        []struct{ Name string } `json:"tools"`
			OutputConfig *json.RawMessage        `json:"output_config"`
		}
		if err := reqs[i].JSON(&body); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range body.Tools {
			names = append(names, tl.Name)
		}
		if strings.Join(names, " ") != want.tools || (body.OutputConfig != nil) != want.format {
			t.Errorf("request %d: tools %q, output_config %v; want %q, %v", i+1, names, body.OutputConfig != nil, want.tools, want.format)
		}
	}
}
