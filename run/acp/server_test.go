package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/acp/acptest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// fakeEngine runs each prompt with run, which emits through emit.
type fakeEngine struct {
	emit  func(agent.Event)
	asker agent.Asker
	run   func(ctx context.Context, emit func(agent.Event), text string) error
}

func (f *fakeEngine) ID() string                                    { return "sess-1" }
func (f *fakeEngine) Usage() Usage                                  { return Usage{Window: 1000, CostUSD: 0.5, CostKnown: true} }
func (f *fakeEngine) Close() error                                  { return nil }
func (f *fakeEngine) History() []llm.Message                        { return nil }
func (f *fakeEngine) Models() (string, []string)                    { return "m1", []string{"m1", "m2"} }
func (f *fakeEngine) SetModel(string) error                         { return nil }
func (f *fakeEngine) Prompt(ctx context.Context, text string) error { return f.run(ctx, f.emit, text) }

// serve starts a server whose sessions run run, with a scripted client.
func serve(t *testing.T, run func(ctx context.Context, emit func(agent.Event), text string) error, opt Options) *acptest.Client {
	t.Helper()
	return serveWith(t, acptest.NewValidator(t), run, opt)
}

// serveWith is serve with a validator compiled once.
func serveWith(t *testing.T, v *acptest.Validator, run func(ctx context.Context, emit func(agent.Event), text string) error, opt Options) *acptest.Client {
	t.Helper()
	if opt.Open == nil {
		opt.Open = func(ctx context.Context, o OpenOptions) (Engine, error) {
			return &fakeEngine{emit: o.Emit, asker: o.Asker(nil), run: run}, nil
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	if opt.List == nil {
		opt.List = func(string) ([]SessionInfo, error) { return nil, nil }
	}
	srv := NewServer(outW, opt)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(context.Background(), inR)
		outW.Close()
		inR.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(acptest.Wait):
			t.Error("the server did not stop at the end of its input")
		}
	})
	return acptest.NewClient(t, v, outR, inW)
}

// open initializes and opens a session.
func openSession(t *testing.T, c *acptest.Client) string {
	t.Helper()
	c.Result("initialize", map[string]any{"protocolVersion": 1}, nil)
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	c.Result("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}, &ns)
	return ns.SessionID
}

func promptParams(id, text string) map[string]any {
	return map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

// TestInitializeVersion: the agent answers version 1 whatever the client
// asks (the client disconnects if it cannot speak it); a missing version
// is invalid params.
func TestInitializeVersion(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		params   map[string]any
		want     int
		wantCode int
	}{
		"1":       {map[string]any{"protocolVersion": 1}, 1, 0},
		"newer":   {map[string]any{"protocolVersion": 7}, 1, 0},
		"older":   {map[string]any{"protocolVersion": 0}, 1, 0},
		"missing": {map[string]any{}, 0, -32602},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := serve(t, nil, Options{})
			m := c.Call("initialize", tc.params)
			if tc.wantCode != 0 {
				if m.Error == nil || m.Error.Code != tc.wantCode {
					t.Errorf("want error %d, got %+v", tc.wantCode, m)
				}
				return
			}
			if string(m.Result) == "" || m.Error != nil {
				t.Fatalf("got %+v", m)
			}
			want := fmt.Sprintf(`"protocolVersion":%d`, tc.want)
			if !strings.Contains(string(m.Result), want) {
				t.Errorf("result %s lacks %s", m.Result, want)
			}
		})
	}
}

// TestBadRequests: each bad message gets its JSON-RPC error and the
// server goes on answering.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	c := serve(t, func(ctx context.Context, emit func(agent.Event), text string) error { return nil }, Options{})
	c.SendRaw(`{"jsonrpc":"2.0","id":`)
	if e := c.WaitOrphanError(); e.Code != codeParse {
		t.Errorf("truncated JSON: %+v", e)
	}
	c.SendRaw(`{"jsonrpc":"1.0","id":5,"method":"initialize"}`)
	if e := c.WaitOrphanError(); e.Code != codeParse {
		t.Errorf("jsonrpc 1.0: %+v", e)
	}
	id := openSession(t, c)
	tests := map[string]struct {
		method string
		params any
		code   int
	}{
		"unknown method":   {"session/frobnicate", map[string]any{}, codeNoMethod},
		"no params":        {"session/new", nil, codeInvalidParams},
		"relative cwd":     {"session/new", map[string]any{"cwd": "rel", "mcpServers": []any{}}, codeInvalidParams},
		"sse mcp server":   {"session/new", map[string]any{"cwd": "/", "mcpServers": []any{map[string]any{"type": "sse", "name": "x", "url": "http://127.0.0.1:1", "headers": []any{}}}}, codeInvalidParams},
		"unknown session":  {"session/prompt", promptParams("nope", "hi"), codeNotFound},
		"empty prompt":     {"session/prompt", promptParams(id, " "), codeInvalidParams},
		"params not shape": {"session/prompt", []any{1, 2}, codeInvalidParams},
		"authenticate":     {"authenticate", map[string]any{"methodId": "x"}, codeInvalidParams},
	}
	for name, tc := range tests {
		m := c.Call(tc.method, tc.params)
		if m.Error == nil || m.Error.Code != tc.code {
			t.Errorf("%s: want error %d, got %+v", name, tc.code, m)
		}
	}
	var res promptResponse
	c.Result("session/prompt", promptParams(id, "still there?"), &res)
	if res.StopReason != stopEndTurn {
		t.Errorf("after the bad requests: %q", res.StopReason)
	}
}

// TestStopReasons maps a run's outcome to the prompt's stop reason.
func TestStopReasons(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		last llm.StopReason
		want string
		fail bool
	}{
		"end turn":       {nil, llm.StopEndTurn, stopEndTurn, false},
		"max tokens":     {nil, llm.StopMaxTokens, stopMaxTokens, false},
		"refusal":        {nil, llm.StopRefusal, stopRefusal, false},
		"max turns":      {&agent.LimitError{Kind: agent.LimitMaxTurns, Err: errors.New("max turns")}, "", stopMaxTurns, false},
		"tool calls cap": {fmt.Errorf("run: %w", &agent.LimitError{Kind: agent.LimitMaxToolCalls, Err: errors.New("cap")}), "", stopMaxTurns, false},
		"policy stop":    {&agent.StopError{Kind: agent.StopMaxDenials, Msg: "too many"}, "", stopEndTurn, false},
		"provider error": {errors.New("the provider said no"), "", "", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := serve(t, func(ctx context.Context, emit func(agent.Event), text string) error {
				emit(agent.Event{Kind: agent.EventMessageDone, Stop: tc.last, Usage: &llm.Usage{InputTokens: 3, OutputTokens: 4}})
				return tc.err
			}, Options{})
			id := openSession(t, c)
			m := c.Call("session/prompt", promptParams(id, "go"))
			if tc.fail {
				if m.Error == nil || !strings.Contains(m.Error.Message, "the provider said no") {
					t.Errorf("want the run's error, got %+v", m)
				}
			} else if !strings.Contains(string(m.Result), `"stopReason":"`+tc.want+`"`) {
				t.Errorf("result %s, error %+v; want stop reason %s", m.Result, m.Error, tc.want)
			}
			u := c.WaitUpdate(func(u acptest.Update) bool { return u.Kind() == "usage_update" })
			if u["used"] != float64(7) || u["size"] != float64(1000) || u["cost"].(map[string]any)["amount"] != 0.5 {
				t.Errorf("usage_update %v", u)
			}
		})
	}
}

// TestCancelMidStream: session/cancel stops the running turn; the prompt
// ends with "cancelled", after the updates sent before it.
func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	c := serve(t, func(ctx context.Context, emit func(agent.Event), text string) error {
		if text == "again" {
			return nil
		}
		emit(agent.Event{Kind: agent.EventTextDelta, Text: "working"})
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(acptest.Wait):
			return errors.New("not cancelled")
		}
	}, Options{})
	id := openSession(t, c)
	ch := c.Start("session/prompt", promptParams(id, "go"))
	c.WaitUpdate(func(u acptest.Update) bool { return u.Kind() == "agent_message_chunk" })
	c.Notify("session/cancel", map[string]any{"sessionId": id})
	m := c.Await(ch)
	if !strings.Contains(string(m.Result), `"stopReason":"cancelled"`) {
		t.Errorf("after cancel: %s %+v", m.Result, m.Error)
	}
	// The session takes the next prompt.
	var res promptResponse
	c.Result("session/prompt", promptParams(id, "again"), &res)
	if res.StopReason != stopEndTurn {
		t.Errorf("the prompt after a cancel: %q", res.StopReason)
	}
}

// TestPermission: the editor's answer is the call's verdict; a cancelled
// request is a no; no answer within the permission timeout leaves the
// call to the headless behaviour (the verdict stays "ask", for on_ask).
func TestPermission(t *testing.T) {
	t.Parallel()
	selected := func(id string) any {
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": id}}
	}
	tests := map[string]struct {
		answer  any
		timeout time.Duration
		want    agent.VerdictKind
		message string
	}{
		"allow once":          {selected(allowOnce), 0, agent.VerdictAllow, ""},
		"reject":              {selected(rejectOnce), 0, agent.VerdictDeny, "The person in the editor refused this call: echo hi."},
		"always, not offered": {selected(allowAlways), 0, agent.VerdictDeny, "refused"},
		"cancelled":           {map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, 0, agent.VerdictDeny, "refused"},
		"no answer in time":   {nil, 50 * time.Millisecond, agent.VerdictAsk, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got agent.Verdict
			open := func(ctx context.Context, o OpenOptions) (Engine, error) {
				ask := o.Asker(nil)
				return &fakeEngine{emit: o.Emit, run: func(ctx context.Context, emit func(agent.Event), text string) error {
					call := llm.Block{Kind: llm.BlockToolUse, ID: "c1", Name: "bash", Input: []byte(`{"command":"echo hi"}`)}
					got = ask.Ask(ctx, call, toolkit.Effects{Summary: "echo hi"}, agent.Verdict{Kind: agent.VerdictAsk, Fact: "echo hi"})
					return nil
				}}, nil
			}
			c := serve(t, nil, Options{Open: open, PermissionTimeout: tc.timeout})
			c.Permission = func(json.RawMessage) any { return tc.answer }
			id := openSession(t, c)
			var res promptResponse
			c.Result("session/prompt", promptParams(id, "go"), &res)
			if got.Kind != tc.want || !strings.Contains(got.Message, tc.message) {
				t.Errorf("verdict %+v, want kind %v with message %q", got, tc.want, tc.message)
			}
		})
	}
}

// closeEngine is a fakeEngine that records a Close while a prompt still
// runs: the run's session file, sinks and MCP servers would be closed
// under the turn winding down.
type closeEngine struct {
	fakeEngine
	running, early atomic.Bool
}

func (e *closeEngine) Prompt(ctx context.Context, text string) error {
	e.running.Store(true)
	defer e.running.Store(false)
	e.emit(agent.Event{Kind: agent.EventTextDelta, Text: "working"})
	select {
	case <-ctx.Done():
	case <-time.After(acptest.Wait):
	}
	time.Sleep(50 * time.Millisecond) // the cancelled turn's calls get their results
	return context.Cause(ctx)
}

func (e *closeEngine) Close() error {
	if e.running.Load() {
		e.early.Store(true)
	}
	return nil
}

// TestCloseWaitsForPrompt: session/close stops the running prompt and
// closes the engine only once the prompt has ended.
func TestCloseWaitsForPrompt(t *testing.T) {
	t.Parallel()
	eng := &closeEngine{}
	c := serve(t, nil, Options{Open: func(ctx context.Context, o OpenOptions) (Engine, error) {
		eng.emit = o.Emit
		return eng, nil
	}})
	id := openSession(t, c)
	ch := c.Start("session/prompt", promptParams(id, "go"))
	c.WaitUpdate(func(u acptest.Update) bool { return u.Kind() == "agent_message_chunk" })
	c.Result("session/close", map[string]any{"sessionId": id}, nil)
	if eng.early.Load() {
		t.Error("the engine was closed while its prompt still ran")
	}
	if m := c.Await(ch); !strings.Contains(string(m.Result), `"stopReason":"cancelled"`) {
		t.Errorf("the prompt after close: %s %+v", m.Result, m.Error)
	}
}
