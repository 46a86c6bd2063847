package agenttest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// WireBlock is a content block of a recorded Anthropic request.
type WireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   string          `json:"content"`
	IsError   bool            `json:"is_error"`
}

// WireRequest is the part of an Anthropic request body the tests look at.
type WireRequest struct {
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string      `json:"role"`
		Content []WireBlock `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// Results returns the tool results of the last user message of the
// request, as "ID ok: CONTENT" or "ID error: CONTENT".
func (w WireRequest) Results() []string {
	last := w.Messages[len(w.Messages)-1]
	var out []string
	for _, c := range last.Content {
		if c.Type == "tool_result" {
			mark := "ok"
			if c.IsError {
				mark = "error"
			}
			out = append(out, c.ToolUseID+" "+mark+": "+c.Content)
		}
	}
	return out
}

// LastUserText is the text of the last block of the request's last
// message.
func (w WireRequest) LastUserText() string {
	last := w.Messages[len(w.Messages)-1].Content
	return last[len(last)-1].Text
}

// Call is a scripted tool call.
func Call(id, name string, args ...string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: name, Args: args}
}

// Result is what a scripted run did.
type Result struct {
	Err      error
	Events   []agent.Event
	Requests []WireRequest
	Raw      []llmtest.Request
	Agent    *agent.Agent
}

// Kinds returns the run's events of kind k, in order.
func (r Result) Kinds(k agent.EventKind) []agent.Event {
	var out []agent.Event
	for _, ev := range r.Events {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// Run takes an Agent built with o and tools through script, served on
// 127.0.0.1, with the prompt "do the task". The model is "test-model",
// the system prompt "be brief" and retries are instant; MaxTurns defaults
// to 10, the retry policy to three attempts, the judge to JudgeBy(nil,
// nil). Every event is recorded, and given to o.Emit too when it is set.
func Run(t testing.TB, ctx context.Context, script llmtest.Script, o agent.Options, tools ...toolkit.Tool) Result {
	t.Helper()
	srv := llmtest.NewServer(script)
	t.Cleanup(srv.Close)
	if o.Limits.MaxTurns == 0 {
		o.Limits.MaxTurns = 10
	}
	if o.Retry.MaxAttempts == 0 {
		o.Retry = llm.RetryPolicy{MaxAttempts: 3, Jitter: func(time.Duration) time.Duration { return 0 }}
	}
	o.Clock = FakeClock{}
	o.Tools = tools
	o.Model = "test-model"
	o.System = "be brief"
	if o.Judge == nil {
		o.Judge = JudgeBy(nil, nil)
	}
	var r Result
	emit := o.Emit
	o.Emit = func(ev agent.Event) {
		r.Events = append(r.Events, ev)
		if emit != nil {
			emit(ev)
		}
	}
	client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "sk-test"})
	r.Agent = agent.New(client, o)
	r.Err = r.Agent.Run(ctx, "do the task")
	r.Raw = srv.Requests()
	for _, req := range r.Raw {
		var w WireRequest
		if err := req.JSON(&w); err != nil {
			t.Fatal(err)
		}
		r.Requests = append(r.Requests, w)
	}
	return r
}

// ToolTurns is a script of n tool-call turns and a final answer.
func ToolTurns(n int, name, args string) llmtest.Script {
	var s llmtest.Script
	for range n {
		s.Turns = append(s.Turns, llmtest.Turn{
			ToolCalls: []llmtest.ToolCall{{Name: name, Args: []string{args}}},
			Usage:     llmtest.Usage{InputTokens: 1000, OutputTokens: 20},
		})
	}
	s.Turns = append(s.Turns, llmtest.Turn{Text: []string{"done"}})
	return s
}
