package agent_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/toolkit"
)

// testLoop is a loop on a scripted server, for tests that run it more
// than once or call its methods between runs.
type testLoop struct {
	l      *agent.Agent
	srv    *llmtest.Server
	events *[]agent.Event
}

func newTestLoop(t *testing.T, script llmtest.Script, cfg agent.Options, tools ...toolkit.Tool) testLoop {
	t.Helper()
	srv := llmtest.NewServer(script)
	t.Cleanup(srv.Close)
	cfg.Limits.MaxTurns = max(cfg.Limits.MaxTurns, 10)
	cfg.Retry = llm.RetryPolicy{MaxAttempts: 1}
	cfg.Clock = agenttest.FakeClock{}
	cfg.Tools = tools
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	cfg.System = "be brief"
	evs := &[]agent.Event{}
	cfg.Judge = agenttest.JudgeBy(nil, nil)
	cfg.Emit = func(ev agent.Event) { *evs = append(*evs, ev) }
	client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "sk-test"})
	l := agent.New(client, cfg)
	return testLoop{l: l, srv: srv, events: evs}
}

// request returns request i (from 0) as the wire shows it, with its model.
func (tl testLoop) request(t *testing.T, i int) (agenttest.WireRequest, string) {
	t.Helper()
	reqs := tl.srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	var w agenttest.WireRequest
	var m struct {
		Model string `json:"model"`
	}
	if err := reqs[i].JSON(&w); err != nil {
		t.Fatal(err)
	}
	if err := reqs[i].JSON(&m); err != nil {
		t.Fatal(err)
	}
	return w, m.Model
}

// fakeVerifier answers its checks from a script, one entry per attempt.
type fakeVerifier struct {
	results  []agent.Verification
	err      error
	attempts []int
	finals   []string
}

func (f *fakeVerifier) Verify(_ context.Context, attempt int, final agent.Final) (agent.Verification, error) {
	f.attempts = append(f.attempts, attempt)
	f.finals = append(f.finals, final.Text)
	if f.err != nil {
		return agent.Verification{}, f.err
	}
	n := min(len(f.attempts), len(f.results)) - 1
	return f.results[n], nil
}

// stopHooks is an [agent.Hooks] whose stop hook sends the model back
// with the messages given, one per final answer, then lets the run end.
type stopHooks struct {
	back  []string
	stops int
}

func (h *stopHooks) BeforeTool(context.Context, int, agent.ToolCall, int) agent.HookOutcome {
	return agent.HookOutcome{Decision: agent.HookAllow}
}

func (h *stopHooks) AfterTool(_ context.Context, _ int, _ agent.ToolCall, res toolkit.Result) toolkit.Result {
	return res
}

func (h *stopHooks) Stop(context.Context, int) string {
	h.stops++
	if h.stops <= len(h.back) {
		return h.back[h.stops-1]
	}
	return ""
}

func TestLoopFinalAnswerStep(t *testing.T) {
	t.Parallel()
	pass := agent.Verification{Passed: true}
	fix := agent.Verification{Feedback: "the check failed: fix it"}
	gaveUp := errors.New("verification failed: `make` did not pass in 1 attempts")
	broken := errors.New("verify: cannot start")
	tests := []struct {
		name      string
		vs        []*fakeVerifier
		back      []string // what the stop hooks send back, in order
		wantErr   error
		requests  int
		attempts  [][]int
		lastUser  string // the last user message of the last request
		limitText string
		checked   string // the answer the first check saw; "" is "done"
	}{
		{name: "no verifier", requests: 1},
		{name: "passes at once", vs: []*fakeVerifier{{results: []agent.Verification{pass}}}, requests: 1, attempts: [][]int{{1}}},
		{name: "feedback, then passes", vs: []*fakeVerifier{{results: []agent.Verification{fix, pass}}}, requests: 2,
			attempts: [][]int{{1, 2}}, lastUser: "the check failed: fix it"},
		{name: "gives up", vs: []*fakeVerifier{{results: []agent.Verification{{Stop: gaveUp}}}}, wantErr: gaveUp, requests: 1,
			attempts: [][]int{{1}}, limitText: gaveUp.Error()},
		{name: "cannot run", vs: []*fakeVerifier{{err: broken}}, wantErr: broken, requests: 1, attempts: [][]int{{1}}},
		{name: "in order, each counting its own attempts", vs: []*fakeVerifier{
			{results: []agent.Verification{pass}}, {results: []agent.Verification{fix, pass}}},
			requests: 2, attempts: [][]int{{1, 2}, {1, 2}}, lastUser: "the check failed: fix it"},
		{name: "stop hooks first", vs: []*fakeVerifier{{results: []agent.Verification{pass}}}, back: []string{"not yet"},
			requests: 2, attempts: [][]int{{1}}, lastUser: "not yet", checked: "done again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := agent.Options{Hooks: &stopHooks{back: tt.back}}
			for _, v := range tt.vs {
				cfg.Verifiers = append(cfg.Verifiers, v)
			}
			tl := newTestLoop(t, llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"done"}}, {Text: []string{"done again"}}}}, cfg)
			err := tl.l.Run(context.Background(), "do it")
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if n := len(tl.srv.Requests()); n != tt.requests {
				t.Fatalf("%d requests, want %d", n, tt.requests)
			}
			for i, v := range tt.vs {
				if !slices.Equal(v.attempts, tt.attempts[i]) {
					t.Errorf("verifier %d: attempts %v, want %v", i, v.attempts, tt.attempts[i])
				}
				if want := cmp.Or(tt.checked, "done"); len(v.finals) > 0 && v.finals[0] != want {
					t.Errorf("verifier %d checked %q", i, v.finals[0])
				}
			}
			if tt.lastUser != "" {
				w, _ := tl.request(t, tt.requests-1)
				if got := w.LastUserText(); got != tt.lastUser {
					t.Errorf("last user message %q, want %q", got, tt.lastUser)
				}
			}
			var limits []string
			for _, ev := range *tl.events {
				if ev.Kind == agent.EventLimit {
					limits = append(limits, ev.Text)
				}
			}
			if want := []string{tt.limitText}; tt.limitText != "" && !slices.Equal(limits, want) || tt.limitText == "" && len(limits) > 0 {
				t.Errorf("limit events %q, want %q", limits, tt.limitText)
			}
		})
	}
}

// TestLoopRunsStartAfresh: each run counts its own turns, tool calls and
// verifier attempts, and leaves its own pending calls; the conversation
// goes on.
func TestLoopRunsStartAfresh(t *testing.T) {
	t.Parallel()
	v := &fakeVerifier{results: []agent.Verification{{Feedback: "again"}, {Passed: true}}}
	bash := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}
	tl := newTestLoop(t, llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "bash", `{"command":"ls"}`)}},
		{Text: []string{"first"}},
		{Text: []string{"first, fixed"}},
		{Text: []string{"second"}},
	}}, agent.Options{Verifiers: []agent.Verifier{v}}, bash)
	if err := tl.l.Run(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	first := tl.l.Summary(time.Now())
	if first.Turns != 3 || first.ToolCalls != 1 {
		t.Fatalf("first run: %+v", first)
	}
	v.results = []agent.Verification{{Passed: true}}
	if err := tl.l.Resume(context.Background(), tl.l.Messages(), nil, "two"); err != nil {
		t.Fatal(err)
	}
	second := tl.l.Summary(time.Now())
	if second.Turns != 1 || second.ToolCalls != 0 || second.Denials != 0 || len(tl.l.Pending()) != 0 {
		t.Errorf("second run: %+v", second)
	}
	if !slices.Equal(v.attempts, []int{1, 2, 1}) {
		t.Errorf("attempts %v, want [1 2 1]: each run counts from 1", v.attempts)
	}
	w, _ := tl.request(t, 3)
	if len(w.Messages) != 7 || w.LastUserText() != "two" {
		t.Errorf("the second run's request has %d messages, last %q", len(w.Messages), w.LastUserText())
	}
}

// TestLoopBetweenRuns: what a chat's commands do through the loop's
// methods — /clear, /model, /tools, /compact.
func TestLoopBetweenRuns(t *testing.T) {
	t.Parallel()
	bash := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}
	read := &agenttest.FakeTool{Name: "read", Kind: toolkit.EffectRead}
	tl := newTestLoop(t, llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"a"}}, {Text: []string{"b"}}}},
		agent.Options{Compact: agent.Compact{Window: 100000, MaxOutput: 1000}}, bash, read)
	if got := tl.l.ToolNames(); !slices.Equal(got, []string{"bash", "read"}) {
		t.Errorf("ToolNames %v", got)
	}
	if specs := tl.l.ToolSpecs(); len(specs) != 2 || specs[1].Name != "read" || string(specs[1].Schema) != `{"type":"object"}` {
		t.Errorf("ToolSpecs %+v", specs)
	}
	ctx := context.Background()
	if out, err := tl.l.CompactNow(ctx); out != agent.CompactTooShort || err != nil {
		t.Errorf("CompactNow on an empty conversation: %v, %v", out, err)
	}
	if err := tl.l.Run(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	tl.l.Reset()
	if len(tl.l.Messages()) != 0 {
		t.Errorf("Reset left %d messages", len(tl.l.Messages()))
	}
	tl.l.SetModel("other-model", agent.Compact{})
	if tl.l.Model() != "other-model" {
		t.Errorf("Model %q", tl.l.Model())
	}
	if out, err := tl.l.CompactNow(ctx); out != agent.CompactOff || err != nil {
		t.Errorf("CompactNow with compaction off: %v, %v", out, err)
	}
	if err := tl.l.Run(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	w, model := tl.request(t, 1)
	if model != "other-model" || len(w.Messages) != 1 || w.LastUserText() != "two" {
		t.Errorf("after /clear and /model: model %q, %d messages", model, len(w.Messages))
	}
}

// recordingHooks is an [agent.Hooks] that denies the commands it is told
// to, tags every result, and records the calls it saw.
type recordingHooks struct {
	deny  string
	seen  []string
	after []string
}

func (h *recordingHooks) BeforeTool(_ context.Context, _ int, call agent.ToolCall, _ int) agent.HookOutcome {
	h.seen = append(h.seen, call.ID+" "+call.Name+" "+string(call.Input))
	if strings.Contains(string(call.Input), h.deny) {
		return agent.HookOutcome{Decision: agent.HookDeny, Hook: "guard", Reason: "not that"}
	}
	return agent.HookOutcome{Decision: agent.HookAllow}
}

func (h *recordingHooks) AfterTool(_ context.Context, _ int, call agent.ToolCall, res toolkit.Result) toolkit.Result {
	h.after = append(h.after, call.ID)
	res.Content += " [tagged]"
	return res
}

func (h *recordingHooks) Stop(context.Context, int) string { return "" }

// TestLoopCallsHooksThroughTheSeam: the loop calls the hooks it was built
// with, through [agent.Hooks]: a denial keeps the tool from running, and
// what the after hooks return is the model's result.
func TestLoopCallsHooksThroughTheSeam(t *testing.T) {
	t.Parallel()
	h := &recordingHooks{deny: "rm"}
	bash := &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute}
	r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "bash", `{"command":"ls"}`), agenttest.Call("c2", "bash", `{"command":"rm x"}`)}},
		{Text: []string{"done"}},
	}}, agent.Options{Hooks: h}, nil, bash)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := bash.RanWith(); !slices.Equal(got, []string{`{"command":"ls"}`}) {
		t.Errorf("ran %v", got)
	}
	if len(h.seen) != 2 || !slices.Equal(h.after, []string{"c1"}) {
		t.Errorf("before saw %v, after saw %v", h.seen, h.after)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(h.seen[0], " ", 3)[2]), &in); err != nil || in["command"] != "ls" {
		t.Errorf("the hook's input %q: %v", h.seen[0], err)
	}
	got := r.Requests[1].Results()
	want := []string{"c1 ok: ran bash {\"command\":\"ls\"} [tagged]", "c2 error: Denied by hook guard: not that"}
	if !slices.Equal(got, want) {
		t.Errorf("results %q, want %q", got, want)
	}
}
