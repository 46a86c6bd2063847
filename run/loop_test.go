package run

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit"
)

// fakeTool is a tool whose effects and results the test chooses.
type fakeTool struct {
	name   string
	kind   toolkit.EffectKind
	result func(args json.RawMessage) (toolkit.Result, error)

	mu   sync.Mutex
	runs []string
}

func (f *fakeTool) Spec() toolkit.Spec {
	return toolkit.Spec{Name: f.name, Description: "a fake " + f.name, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (f *fakeTool) Effects(args json.RawMessage) (toolkit.Effects, error) {
	var a struct {
		Command string `json:"command"`
		Path    string `json:"path"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return toolkit.Effects{}, err
	}
	if a.Path == "bad" {
		return toolkit.Effects{}, errors.New("path bad is outside the workspace")
	}
	return toolkit.Effects{Kind: f.kind, Command: a.Command, Paths: []toolkit.PathRef{{Requested: a.Path, Resolved: a.Path}}}, nil
}

func (f *fakeTool) Run(ctx context.Context, args json.RawMessage) (toolkit.Result, error) {
	f.mu.Lock()
	f.runs = append(f.runs, string(args))
	f.mu.Unlock()
	if f.result != nil {
		return f.result(args)
	}
	return toolkit.Result{Content: "ran " + f.name + " " + string(args)}, nil
}

func (f *fakeTool) ranWith() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.runs...)
}

// fakeClock makes retries instant.
type fakeClock struct{}

func (fakeClock) Now() time.Time { return time.Unix(0, 0) }
func (fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	return ctx.Err()
}

// judgeBy is a judge that allows everything but the commands it is told
// to deny or to ask about.
func judgeBy(deny, ask map[string]bool) judge {
	return func(tool string, eff toolkit.Effects) verdict {
		switch {
		case deny[eff.Command]:
			return verdict{Kind: verdictDeny, Rule: "no-net", Fact: eff.Command, Reason: "no network", Message: "Policy denied this call: " + eff.Command}
		case ask[eff.Command]:
			return verdict{Kind: verdictAsk, Rule: "defaults.decision", Fact: eff.Command, Message: "Policy refused this call: " + eff.Command}
		}
		return verdict{Kind: verdictAllow, Rule: "all"}
	}
}

type loopRun struct {
	err      error
	events   []Event
	stdout   string
	requests []wireRequest
	raw      []llmtest.Request
	loop     *loop
}

// wireBlock is a content block of a recorded Anthropic request.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   string          `json:"content"`
	IsError   bool            `json:"is_error"`
}

// wireRequest is the part of an Anthropic request body the tests look at.
type wireRequest struct {
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string      `json:"role"`
		Content []wireBlock `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// results returns the tool results of the last user message of the request.
func (w wireRequest) results() []string {
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

func runLoop(t *testing.T, ctx context.Context, script llmtest.Script, cfg loopConfig, j judge, tools ...toolkit.Tool) loopRun {
	t.Helper()
	srv := llmtest.NewServer(script)
	t.Cleanup(srv.Close)
	if cfg.MaxTurns == 0 {
		cfg.MaxTurns = 10
	}
	if cfg.Retry.MaxAttempts == 0 {
		cfg.Retry = llm.RetryPolicy{MaxAttempts: 3, Jitter: func(time.Duration) time.Duration { return 0 }}
	}
	cfg.Clock = fakeClock{}
	cfg.Tools = tools
	cfg.Model = "test-model"
	cfg.System = "be brief"
	if j == nil {
		j = judgeBy(nil, nil)
	}
	var stdout strings.Builder
	text := sink.NewText(&stdout, sink.TextOptions{Final: false})
	var r loopRun
	client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "sk-test"})
	r.loop = newLoop(cfg, client, j, func(ev Event) {
		r.events = append(r.events, ev)
		text.Handle(ev)
	})
	r.err = r.loop.run(ctx, "do the task")
	text.Handle(Event{Kind: EventTurnDone, Summary: &Summary{}})
	r.stdout = stdout.String()
	r.raw = srv.Requests()
	for _, req := range r.raw {
		var w wireRequest
		if err := req.JSON(&w); err != nil {
			t.Fatal(err)
		}
		r.requests = append(r.requests, w)
	}
	return r
}

func (r loopRun) kinds(k EventKind) []Event {
	var out []Event
	for _, ev := range r.events {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

func call(id, name string, args ...string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: name, Args: args}
}

func TestLoopTextOnly(t *testing.T) {
	t.Parallel()
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"Hello", ", world"}, Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 3}},
	}}, loopConfig{}, nil)
	if r.err != nil || r.stdout != "Hello, world\n" || len(r.requests) != 1 {
		t.Fatalf("err %v, stdout %q, %d requests", r.err, r.stdout, len(r.requests))
	}
	sum := r.loop.Summary(time.Now(), 0)
	if sum.Turns != 1 || sum.InputTokens != 10 || sum.OutputTokens != 3 {
		t.Errorf("summary %+v", sum)
	}
	if got := r.requests[0].Messages[0].Content[0].Text; got != "do the task" {
		t.Errorf("first message %q", got)
	}
}

func TestLoopToolResultsInOrder(t *testing.T) {
	t.Parallel()
	bash := &fakeTool{name: "bash", kind: toolkit.EffectExecute}
	read := &fakeTool{name: "read", kind: toolkit.EffectRead}
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"Checking."}, ToolCalls: []llmtest.ToolCall{
			call("c1", "read", `{"pa`, `th":"a.go"}`),
			call("c2", "bash", `{"command":"go test ./..."}`),
			call("c3", "nosuch", `{}`),
			call("c4", "read", `{"path": "a.go"`),
			call("c5", "read", `[1,2]`),
			call("c6", "read", `{"path":"bad"}`),
		}},
		{Text: []string{"All good."}},
	}}, loopConfig{}, nil, bash, read)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.requests) != 2 {
		t.Fatalf("%d requests", len(r.requests))
	}
	got := r.requests[1].results()
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
	asst := r.requests[1].Messages[1]
	for _, c := range asst.Content {
		if c.Type == "tool_use" && (c.ID == "c4" || c.ID == "c5") && string(c.Input) != "{}" {
			t.Errorf("call %s sent back with input %s", c.ID, c.Input)
		}
	}
	if r.stdout != "Checking.\nAll good.\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	if n := len(r.kinds(EventToolCall)); n != 6 {
		t.Errorf("%d tool call events, want 6", n)
	}
	if n := len(r.kinds(EventToolResult)); n != 6 {
		t.Errorf("%d tool result events, want 6", n)
	}
}

func TestLoopDenials(t *testing.T) {
	t.Parallel()
	bash := &fakeTool{name: "bash", kind: toolkit.EffectExecute}
	turn := llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("", "bash", `{"command":"curl x"}`)}}
	t.Run("recovers", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, {Text: []string{"Could not fetch; done."}}}},
			loopConfig{}, judgeBy(map[string]bool{"curl x": true}, nil), bash)
		if r.err != nil {
			t.Fatal(r.err)
		}
		if got := r.requests[1].results(); len(got) != 1 || !strings.Contains(got[0], "error: Policy denied this call: curl x") {
			t.Errorf("results %q", got)
		}
		d := r.kinds(EventToolDenied)
		if len(d) != 1 || d[0].Denial.Rule != "no-net" || d[0].Denial.Reason != "no network" {
			t.Errorf("denial events %+v", d)
		}
		if len(bash.ranWith()) != 0 {
			t.Errorf("denied command ran")
		}
	})
	t.Run("max denials", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, turn, turn}},
			loopConfig{MaxDenials: 2}, judgeBy(map[string]bool{"curl x": true}, nil), bash)
		if exitCode(r.err) != exitPolicy || len(r.requests) != 2 {
			t.Fatalf("err %v (code %d), %d requests", r.err, exitCode(r.err), len(r.requests))
		}
		if lim := r.kinds(EventLimit); len(lim) != 1 || !strings.Contains(lim[0].Text, "max_denials 2") {
			t.Errorf("limit events %+v", lim)
		}
	})
	t.Run("ask denied", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, {Text: []string{"ok"}}}},
			loopConfig{}, judgeBy(nil, map[string]bool{"curl x": true}), bash)
		if r.err != nil || !strings.Contains(r.requests[1].results()[0], "Policy refused this call") {
			t.Fatalf("err %v, results %q", r.err, r.requests[1].results())
		}
	})
	t.Run("ask aborts", func(t *testing.T) {
		t.Parallel()
		two := llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("a", "bash", `{"command":"curl x"}`), call("b", "bash", `{"command":"ls"}`)}}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{two, {Text: []string{"never"}}}},
			loopConfig{AbortOnAsk: "--on-ask is abort"}, judgeBy(nil, map[string]bool{"curl x": true}), bash)
		if exitCode(r.err) != exitPolicy || len(r.requests) != 1 || len(bash.ranWith()) != 0 {
			t.Fatalf("err %v, %d requests, ran %q", r.err, len(r.requests), bash.ranWith())
		}
		// The conversation stays valid: both calls have a result.
		last := r.loop.messages[len(r.loop.messages)-1]
		if last.Role != llm.RoleUser || len(last.Content) != 2 || last.Content[1].ToolUseID != "b" || !last.Content[1].IsError {
			t.Errorf("last message %+v", last)
		}
	})
}

func TestLoopLimits(t *testing.T) {
	t.Parallel()
	bash := &fakeTool{name: "bash", kind: toolkit.EffectExecute}
	loopTurn := llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("", "bash", `{"command":"ls"}`)}}
	t.Run("max turns", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{loopTurn, loopTurn, loopTurn, loopTurn}},
			loopConfig{MaxTurns: 3}, nil, bash)
		if exitCode(r.err) != exitLimit || len(r.requests) != 3 {
			t.Fatalf("err %v, %d requests", r.err, len(r.requests))
		}
		if lim := r.kinds(EventLimit); len(lim) != 1 || !strings.Contains(lim[0].Text, "--max-turns 3") {
			t.Errorf("limit events %+v", lim)
		}
	})
	t.Run("max tool calls", func(t *testing.T) {
		t.Parallel()
		three := llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("a", "bash", `{"command":"1"}`), call("b", "bash", `{"command":"2"}`), call("c", "bash", `{"command":"3"}`)}}
		tool := &fakeTool{name: "bash", kind: toolkit.EffectExecute}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{three, three}},
			loopConfig{MaxToolCalls: 2}, nil, tool)
		if exitCode(r.err) != exitLimit || len(tool.ranWith()) != 2 {
			t.Fatalf("err %v, ran %q", r.err, tool.ranWith())
		}
		last := r.loop.messages[len(r.loop.messages)-1]
		if len(last.Content) != 3 || !strings.Contains(last.Content[2].Content, "Not run") {
			t.Errorf("last message %+v", last)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, agent.ErrTimeout)
		defer cancel()
		slow := llmtest.Turn{Text: []string{"a", "b", "c", "d"}, Delay: llmtest.Duration(time.Second)}
		r := runLoop(t, ctx, llmtest.Script{Turns: []llmtest.Turn{slow}}, loopConfig{Timeout: 50 * time.Millisecond}, nil)
		if exitCode(r.err) != exitLimit {
			t.Fatalf("err %v", r.err)
		}
		if lim := r.kinds(EventLimit); len(lim) != 1 || !strings.Contains(lim[0].Text, "--timeout 50ms") {
			t.Errorf("limit events %+v", lim)
		}
	})
	t.Run("signal", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancelCause(context.Background())
		tool := &fakeTool{name: "bash", kind: toolkit.EffectExecute}
		tool.result = func(json.RawMessage) (toolkit.Result, error) {
			cancel(SignalError{Signal: sigterm})
			return toolkit.Result{Content: "killed", IsError: true}, nil
		}
		r := runLoop(t, ctx, llmtest.Script{Turns: []llmtest.Turn{loopTurn, {Text: []string{"never"}}}}, loopConfig{}, nil, tool)
		var sig SignalError
		if !errors.As(r.err, &sig) || sig.ExitCode() != 143 || len(r.requests) != 1 {
			t.Fatalf("err %v, %d requests", r.err, len(r.requests))
		}
	})
}

func TestLoopMaxTokensCut(t *testing.T) {
	t.Parallel()
	write := &fakeTool{name: "write", kind: toolkit.EffectWrite}
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"Writing."}, ToolCalls: []llmtest.ToolCall{call("w1", "write", `{"path":"a.go","content":"package`)}, Stop: "max_tokens"},
		{Text: []string{"Done."}},
	}}, loopConfig{}, nil, write)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(write.ranWith()) != 0 {
		t.Fatalf("a cut tool call ran: %q", write.ranWith())
	}
	got := r.requests[1].results()
	if len(got) != 1 || !strings.HasPrefix(got[0], "w1 error: Not run: your response was cut off at the output token limit") {
		t.Errorf("results %q", got)
	}
}

func TestLoopMaxTokensTextContinues(t *testing.T) {
	t.Parallel()
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{Text: []string{"The first half"}, Stop: "max_tokens"},
		{Text: []string{"and the rest."}},
	}}, loopConfig{}, nil)
	if r.err != nil || len(r.requests) != 2 {
		t.Fatalf("err %v, %d requests", r.err, len(r.requests))
	}
	last := r.requests[1].Messages[len(r.requests[1].Messages)-1]
	if last.Role != "user" || last.Content[0].Text != cutAnswerNote {
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
		}}, loopConfig{}, nil)
		if r.err != nil || r.stdout != "ok\n" {
			t.Fatalf("err %v stdout %q", r.err, r.stdout)
		}
		re := r.kinds(EventRetry)
		if len(re) != 1 || re[0].Retry.Reason != "429 rate limit" || re[0].Retry.Wait != time.Second {
			t.Errorf("retry events %+v", re[0].Retry)
		}
	})
	t.Run("stream cut after text is printed again", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{Text: []string{"The ans", "wer"}, Fault: &llmtest.Fault{After: 1, Disconnect: true}},
			{Text: []string{"The ans", "wer"}},
		}}, loopConfig{}, nil)
		if r.err != nil || r.stdout != "The ans\nThe answer\n" {
			t.Fatalf("err %v stdout %q", r.err, r.stdout)
		}
		if len(r.kinds(EventStreamCut)) != 1 {
			t.Errorf("no stream-cut event")
		}
	})
	t.Run("one stream-cut notice per cut attempt", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{Text: []string{"The ans", "wer"}, Fault: &llmtest.Fault{After: 1, Disconnect: true}},
			{Fault: &llmtest.Fault{Status: 529, Type: "overloaded_error", Message: "Overloaded"}},
			{Text: []string{"The ans", "wer"}},
		}}, loopConfig{}, nil)
		if r.err != nil || r.stdout != "The ans\nThe answer\n" {
			t.Fatalf("err %v stdout %q", r.err, r.stdout)
		}
		var kinds []EventKind
		for _, ev := range r.events {
			if ev.Kind == EventStreamCut || ev.Kind == EventRetry {
				kinds = append(kinds, ev.Kind)
			}
		}
		if want := []EventKind{EventStreamCut, EventRetry, EventRetry}; !slices.Equal(kinds, want) {
			t.Errorf("events %v, want %v: the attempt that failed before text printed nothing", kinds, want)
		}
	})
	t.Run("auth is fatal", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{Fault: &llmtest.Fault{Status: 401, Type: "authentication_error", Message: "invalid x-api-key"}},
		}}, loopConfig{}, nil)
		if exitCode(r.err) != exitProvider || len(r.requests) != 1 || !strings.Contains(r.err.Error(), "invalid x-api-key") {
			t.Fatalf("err %v, %d requests", r.err, len(r.requests))
		}
		if strings.Contains(r.err.Error(), "sk-test") {
			t.Errorf("error shows the key: %v", r.err)
		}
	})
	t.Run("context window", func(t *testing.T) {
		t.Parallel()
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
			{Fault: &llmtest.Fault{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}},
		}}, loopConfig{}, nil)
		if exitCode(r.err) != exitProvider || !strings.Contains(r.err.Error(), "no longer fits the model's context window") {
			t.Fatalf("err %v", r.err)
		}
	})
	t.Run("retries exhausted", func(t *testing.T) {
		t.Parallel()
		f := llmtest.Turn{Fault: &llmtest.Fault{Status: 503, Message: "unavailable"}}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{f, f, f}}, loopConfig{}, nil)
		if exitCode(r.err) != exitProvider || len(r.requests) != 3 || len(r.kinds(EventRetry)) != 2 {
			t.Fatalf("err %v, %d requests", r.err, len(r.requests))
		}
	})
}

func TestLoopToolFailures(t *testing.T) {
	t.Parallel()
	turn := llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("a", "bash", `{"command":"x"}`), call("b", "bash", `{"command":"y"}`)}}
	t.Run("panic is an error result", func(t *testing.T) {
		t.Parallel()
		tool := &fakeTool{name: "bash", kind: toolkit.EffectExecute, result: func(json.RawMessage) (toolkit.Result, error) { panic("boom") }}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, {Text: []string{"ok"}}}}, loopConfig{}, nil, tool)
		if r.err != nil || !strings.Contains(r.requests[1].results()[0], "panic: boom") {
			t.Fatalf("err %v results %q", r.err, r.requests[1].results())
		}
	})
	t.Run("infrastructure error ends the run", func(t *testing.T) {
		t.Parallel()
		tool := &fakeTool{name: "bash", kind: toolkit.EffectExecute, result: func(json.RawMessage) (toolkit.Result, error) {
			return toolkit.Result{}, errors.New("cannot start shell")
		}}
		r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{turn, {Text: []string{"never"}}}}, loopConfig{}, nil, tool)
		if exitCode(r.err) != exitFailure || len(tool.ranWith()) != 1 || len(r.requests) != 1 {
			t.Fatalf("err %v, ran %q", r.err, tool.ranWith())
		}
		last := r.loop.messages[len(r.loop.messages)-1]
		if len(last.Content) != 2 {
			t.Errorf("conversation left without a result per call: %+v", last)
		}
	})
}

var sigterm = syscall.SIGTERM

func TestSanitize(t *testing.T) {
	t.Parallel()
	in := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.TextBlock("x"),
		llm.ToolUseBlock("a", "read", json.RawMessage(`{"path":"a"}`)),
		llm.ToolUseBlock("b", "read", json.RawMessage(`{"path":`)),
		llm.ToolUseBlock("c", "read", json.RawMessage(`[1]`)),
	}}
	out := sanitize(in)
	got := []string{string(out.Content[1].Input), string(out.Content[2].Input), string(out.Content[3].Input)}
	if strings.Join(got, " ") != `{"path":"a"} {} {}` {
		t.Errorf("sanitized inputs %q", got)
	}
	if string(in.Content[2].Input) != `{"path":` {
		t.Errorf("sanitize changed its argument")
	}
}
