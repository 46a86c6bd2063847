package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit"
)

// loopRun is a scripted run with what the text sink printed of it.
type loopRun struct {
	agenttest.Result
	stdout string
}

// runLoop takes an Agent built with o and tools through script (see
// [agenttest.Run]), judged by j (nil: allow all), rendering its events
// with the text sink as a headless run does. Compaction opens its summary
// with the session format's preface, as the harness sets it.
func runLoop(t *testing.T, ctx context.Context, script llmtest.Script, o agent.Options, j agent.Judge, tools ...toolkit.Tool) loopRun {
	t.Helper()
	var stdout strings.Builder
	text := sink.NewText(&stdout, sink.TextOptions{Final: false})
	o.Judge, o.Emit = j, text.Handle
	o.Compact.Preface = session.SummaryPreface
	r := agenttest.Run(t, ctx, script, o, tools...)
	text.Handle(agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{}})
	return loopRun{Result: r, stdout: stdout.String()}
}

func TestLoopTextOnly(t *testing.T) {
	t.Parallel()
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"Hello", ", world"}, Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 3}},
	}}, agent.Options{}, nil)
	if r.Err != nil || r.stdout != "Hello, world\n" || len(r.Requests) != 1 {
		t.Fatalf("err %v, stdout %q, %d requests", r.Err, r.stdout, len(r.Requests))
	}
	sum := r.Agent.Summary(time.Now())
	if sum.Turns != 1 || sum.InputTokens != 10 || sum.OutputTokens != 3 {
		t.Errorf("summary %+v", sum)
	}
	if got := r.Requests[0].Messages[0].Content[0].Text; got != "do the task" {
		t.Errorf("first message %q", got)
	}
}

func TestLoopToolResultsInOrder(t *testing.T) {
	t.Parallel()
	bash := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}
	read := &agenttest.FakeTool{Name: "read", Kind: toolkit.EffectRead}
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"Checking."}, ToolCalls: []llmtest.ToolCall{
			agenttest.Call("c1", "read", `{"pa`, `th":"a.go"}`),
			agenttest.Call("c2", "bash", `{"command":"go test ./..."}`),
			agenttest.Call("c3", "nosuch", `{}`),
			agenttest.Call("c4", "read", `{"path": "a.go"`),
			agenttest.Call("c5", "read", `[1,2]`),
			agenttest.Call("c6", "read", `{"path":"bad"}`),
		}},
		{Text: []string{"All good."}},
	}}, agent.Options{}, nil, bash, read)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Requests) != 2 {
		t.Fatalf("%d requests", len(r.Requests))
	}
	got := r.Requests[1].Results()
	want := []string{
		`c1 ok: ran read {"path":"a.go"}`,
		`c2 ok: ran bash {"command":"go test ./..."}`,
		`c3 error: Unknown tool "nosuch". The available tools are: bash, read.`,
		`c4 error: Invalid arguments for read: not valid JSON (unexpected end of JSON input). Send the arguments as one JSON object that matches the tool's schema.`,
		`c5 error: Invalid arguments for read: not a JSON object. Send the arguments as one JSON object that matches the tool's schema.`,
		`c6 error: path bad is outside the workspace`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The malformed calls go back into the history with {} as input.
	asst := r.Requests[1].Messages[1]
	for _, c := range asst.Content {
		if c.Type == "tool_use" && (c.ID == "c4" || c.ID == "c5") && string(c.Input) != "{}" {
			t.Errorf("call %s sent back with input %s", c.ID, c.Input)
		}
	}
	if r.stdout != "Checking.\nAll good.\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	if n := len(r.Kinds(agent.EventToolCall)); n != 6 {
		t.Errorf("%d tool call events, want 6", n)
	}
	if n := len(r.Kinds(agent.EventToolResult)); n != 6 {
		t.Errorf("%d tool result events, want 6", n)
	}
}

func TestLoopDenials(t *testing.T) {
	t.Parallel()
	bash := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}
	turn := llmtest.Turn{ToolCalls: []llmtest.ToolCall{agenttest.Call("", "bash", `{"command":"curl x"}`)}}
	t.Run("recovers", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, {Text: []string{"Could not fetch; done."}}}},
			agent.Options{}, agenttest.JudgeBy(map[string]bool{"curl x": true}, nil), bash)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		if got := r.Requests[1].Results(); len(got) != 1 || !strings.Contains(got[0], "error: Policy denied this call: curl x") {
			t.Errorf("results %q", got)
		}
		d := r.Kinds(agent.EventToolDenied)
		if len(d) != 1 || d[0].Denial.Rule != "no-net" || d[0].Denial.Reason != "no network" {
			t.Errorf("denial events %+v", d)
		}
		if len(bash.RanWith()) != 0 {
			t.Errorf("denied command ran")
		}
	})
	t.Run("max denials", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, turn, turn}},
			agent.Options{Limits: agent.Limits{MaxDenials: 2}}, agenttest.JudgeBy(map[string]bool{"curl x": true}, nil), bash)
		if exit.Code(r.Err) != exit.Policy || len(r.Requests) != 2 {
			t.Fatalf("err %v (code %d), %d requests", r.Err, exit.Code(r.Err), len(r.Requests))
		}
		if lim := r.Kinds(agent.EventLimit); len(lim) != 1 || !strings.Contains(lim[0].Text, "max_denials 2") {
			t.Errorf("limit events %+v", lim)
		}
	})
	t.Run("ask denied", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, {Text: []string{"ok"}}}},
			agent.Options{}, agenttest.JudgeBy(nil, map[string]bool{"curl x": true}), bash)
		if r.Err != nil || !strings.Contains(r.Requests[1].Results()[0], "Policy refused this call") {
			t.Fatalf("err %v, results %q", r.Err, r.Requests[1].Results())
		}
	})
	t.Run("ask aborts", func(t *testing.T) {
		t.Parallel()
		two := llmtest.Turn{ToolCalls: []llmtest.ToolCall{agenttest.Call("a", "bash", `{"command":"curl x"}`), agenttest.Call("b", "bash", `{"command":"ls"}`)}}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{two, {Text: []string{"never"}}}},
			agent.Options{OnAsk: agent.OnAsk{Mode: agent.AskAbort, Why: "--on-ask is abort"}}, agenttest.JudgeBy(nil, map[string]bool{"curl x": true}), bash)
		if exit.Code(r.Err) != exit.Policy || len(r.Requests) != 1 || len(bash.RanWith()) != 0 {
			t.Fatalf("err %v, %d requests, ran %q", r.Err, len(r.Requests), bash.RanWith())
		}
		// The conversation stays valid: both calls have a result.
		last := r.Agent.Messages()[len(r.Agent.Messages())-1]
		if last.Role != llm.RoleUser || len(last.Content) != 2 || last.Content[1].ToolUseID != "b" || !last.Content[1].IsError {
			t.Errorf("last message %+v", last)
		}
	})
}

func TestLoopLimits(t *testing.T) {
	t.Parallel()
	bash := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}
	loopTurn := llmtest.Turn{ToolCalls: []llmtest.ToolCall{agenttest.Call("", "bash", `{"command":"ls"}`)}}
	t.Run("max turns", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{loopTurn, loopTurn, loopTurn, loopTurn}},
			agent.Options{Limits: agent.Limits{MaxTurns: 3}}, nil, bash)
		if exit.Code(r.Err) != exit.Limit || len(r.Requests) != 3 {
			t.Fatalf("err %v, %d requests", r.Err, len(r.Requests))
		}
		if lim := r.Kinds(agent.EventLimit); len(lim) != 1 || !strings.Contains(lim[0].Text, "--max-turns 3") {
			t.Errorf("limit events %+v", lim)
		}
	})
	t.Run("max tool calls", func(t *testing.T) {
		t.Parallel()
		three := llmtest.Turn{ToolCalls: []llmtest.ToolCall{agenttest.Call("a", "bash", `{"command":"1"}`), agenttest.Call("b", "bash", `{"command":"2"}`), agenttest.Call("c", "bash", `{"command":"3"}`)}}
		tool := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{three, three}},
			agent.Options{Limits: agent.Limits{MaxToolCalls: 2}}, nil, tool)
		if exit.Code(r.Err) != exit.Limit || len(tool.RanWith()) != 2 {
			t.Fatalf("err %v, ran %q", r.Err, tool.RanWith())
		}
		last := r.Agent.Messages()[len(r.Agent.Messages())-1]
		if len(last.Content) != 3 || !strings.Contains(last.Content[2].Content, "Not run") {
			t.Errorf("last message %+v", last)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, agent.ErrTimeout)
		defer cancel()
		slow := llmtest.Turn{Text: []string{"a", "b", "c", "d"}, Delay: llmtest.Duration(time.Second)}
		r := runLoop(t, ctx, llmtest.Script{Turns: []llmtest.Turn{slow}}, agent.Options{Limits: agent.Limits{Timeout: 50 * time.Millisecond}}, nil)
		if exit.Code(r.Err) != exit.Limit {
			t.Fatalf("err %v", r.Err)
		}
		if lim := r.Kinds(agent.EventLimit); len(lim) != 1 || !strings.Contains(lim[0].Text, "--timeout 50ms") {
			t.Errorf("limit events %+v", lim)
		}
	})
	t.Run("signal", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancelCause(context.Background())
		tool := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}
		tool.Result = func(json.RawMessage) (toolkit.Result, error) {
			cancel(exit.SignalError{Signal: sigterm})
			return toolkit.Result{Content: "killed", IsError: true}, nil
		}
		r := runLoop(t, ctx, llmtest.Script{Turns: []llmtest.Turn{loopTurn, {Text: []string{"never"}}}}, agent.Options{}, nil, tool)
		var sig exit.SignalError
		if !errors.As(r.Err, &sig) || sig.ExitCode() != 143 || len(r.Requests) != 1 {
			t.Fatalf("err %v, %d requests", r.Err, len(r.Requests))
		}
	})
}

func TestLoopMaxTokensCut(t *testing.T) {
	t.Parallel()
	write := &agenttest.FakeTool{Name: "write", Kind: toolkit.EffectWrite}
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"Writing."}, ToolCalls: []llmtest.ToolCall{agenttest.Call("w1", "write", `{"path":"a.go","content":"package`)}, Stop: "max_tokens"},
		{Text: []string{"Done."}},
	}}, agent.Options{}, nil, write)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(write.RanWith()) != 0 {
		t.Fatalf("a cut tool call ran: %q", write.RanWith())
	}
	got := r.Requests[1].Results()
	if len(got) != 1 || !strings.HasPrefix(got[0], "w1 error: Not run: your response was cut off at the output token limit") {
		t.Errorf("results %q", got)
	}
}

func TestLoopMaxTokensTextContinues(t *testing.T) {
	t.Parallel()
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"The first half"}, Stop: "max_tokens"},
		{Text: []string{"and the rest."}},
	}}, agent.Options{}, nil)
	if r.Err != nil || len(r.Requests) != 2 {
		t.Fatalf("err %v, %d requests", r.Err, len(r.Requests))
	}
	last := r.Requests[1].Messages[len(r.Requests[1].Messages)-1]
	if last.Role != "user" || last.Content[0].Text != agent.CutAnswerNote {
		t.Errorf("continuation message %+v", last)
	}
}

func TestLoopProviderErrors(t *testing.T) {
	t.Parallel()
	t.Run("retry then success", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{Fault: &llmtest.Fault{Status: 429, Headers: map[string]string{"retry-after": "1"}, Type: "rate_limit_error", Message: "slow down"}},
			{Text: []string{"ok"}},
		}}, agent.Options{}, nil)
		if r.Err != nil || r.stdout != "ok\n" {
			t.Fatalf("err %v stdout %q", r.Err, r.stdout)
		}
		re := r.Kinds(agent.EventRetry)
		if len(re) != 1 || re[0].Retry.Reason != "429 rate limit" || re[0].Retry.Wait != time.Second {
			t.Errorf("retry events %+v", re[0].Retry)
		}
	})
	t.Run("stream cut after text is continued, not repeated", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			// Thinking: the API refuses a prefill, so the retry is the same request.
			{Thinking: []string{"hmm"}, Text: []string{"The ans", "wer"}, Fault: &llmtest.Fault{After: 2, Disconnect: true}},
			{Text: []string{"The ans", "wer"}},
		}}, agent.Options{}, nil)
		if r.Err != nil || r.stdout != "The answer\n" {
			t.Fatalf("err %v stdout %q", r.Err, r.stdout)
		}
		if n := len(r.Kinds(agent.EventStreamCut)); n != 0 {
			t.Errorf("%d stream-cut events for a retry that repeated the shown text", n)
		}
	})
	t.Run("a retry that departs is one stream cut and the new answer whole", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			// Thinking: the API refuses a prefill, so the retry is the same request.
			{Thinking: []string{"hmm"}, Text: []string{"The ans", "wer"}, Fault: &llmtest.Fault{After: 2, Disconnect: true}},
			{Fault: &llmtest.Fault{Status: 529, Type: "overloaded_error", Message: "Overloaded"}},
			{Text: []string{"The ", "reply"}},
		}}, agent.Options{}, nil)
		if r.Err != nil || r.stdout != "The ans\nThe reply\n" {
			t.Fatalf("err %v stdout %q", r.Err, r.stdout)
		}
		var kinds []agent.EventKind
		for _, ev := range r.Events {
			if ev.Kind == agent.EventStreamCut || ev.Kind == agent.EventRetry {
				kinds = append(kinds, ev.Kind)
			}
		}
		if want := []agent.EventKind{agent.EventRetry, agent.EventRetry, agent.EventStreamCut}; !slices.Equal(kinds, want) {
			t.Errorf("events %v, want %v", kinds, want)
		}
	})
	t.Run("auth is fatal", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{Fault: &llmtest.Fault{Status: 401, Type: "authentication_error", Message: "invalid x-api-key"}},
		}}, agent.Options{}, nil)
		if exit.Code(r.Err) != exit.Provider || len(r.Requests) != 1 || !strings.Contains(r.Err.Error(), "invalid x-api-key") {
			t.Fatalf("err %v, %d requests", r.Err, len(r.Requests))
		}
		if strings.Contains(r.Err.Error(), "sk-test") {
			t.Errorf("error shows the key: %v", r.Err)
		}
	})
	t.Run("context window", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{Fault: &llmtest.Fault{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}},
		}}, agent.Options{}, nil)
		if exit.Code(r.Err) != exit.Provider || !strings.Contains(r.Err.Error(), "no longer fits the model's context window") {
			t.Fatalf("err %v", r.Err)
		}
	})
	t.Run("retries exhausted", func(t *testing.T) {
		t.Parallel()
		f := llmtest.Turn{Fault: &llmtest.Fault{Status: 503, Message: "unavailable"}}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{f, f, f}}, agent.Options{}, nil)
		if exit.Code(r.Err) != exit.Provider || len(r.Requests) != 3 || len(r.Kinds(agent.EventRetry)) != 2 {
			t.Fatalf("err %v, %d requests", r.Err, len(r.Requests))
		}
	})
}

func TestLoopToolFailures(t *testing.T) {
	t.Parallel()
	turn := llmtest.Turn{ToolCalls: []llmtest.ToolCall{agenttest.Call("a", "bash", `{"command":"x"}`), agenttest.Call("b", "bash", `{"command":"y"}`)}}
	t.Run("panic is an error result", func(t *testing.T) {
		t.Parallel()
		tool := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute, Result: func(json.RawMessage) (toolkit.Result, error) { panic("boom") }}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, {Text: []string{"ok"}}}}, agent.Options{}, nil, tool)
		if r.Err != nil || !strings.Contains(r.Requests[1].Results()[0], "panic: boom") {
			t.Fatalf("err %v results %q", r.Err, r.Requests[1].Results())
		}
	})
	t.Run("infrastructure error ends the run", func(t *testing.T) {
		t.Parallel()
		tool := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute, Result: func(json.RawMessage) (toolkit.Result, error) {
			return toolkit.Result{}, errors.New("cannot start shell")
		}}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, {Text: []string{"never"}}}}, agent.Options{}, nil, tool)
		if exit.Code(r.Err) != exit.Failure || len(tool.RanWith()) != 1 || len(r.Requests) != 1 {
			t.Fatalf("err %v, ran %q", r.Err, tool.RanWith())
		}
		last := r.Agent.Messages()[len(r.Agent.Messages())-1]
		if len(last.Content) != 2 {
			t.Errorf("conversation left without a result per call: %+v", last)
		}
	})
}

var sigterm = syscall.SIGTERM
