package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/toolkit"
)

// rendezvous is the shared record of the probe tools of one test: which
// calls started and ended, in order, and how many ran at once at most.
type rendezvous struct {
	mu      sync.Mutex
	log     []string
	running int
	peak    int
	started map[string]int // by group: calls started
	changed chan struct{}  // closed and replaced on every start
}

func newRendezvous() *rendezvous {
	return &rendezvous{started: map[string]int{}, changed: make(chan struct{})}
}

// probe is a tool of kind k. Its arguments {"command":ID,"path":GROUP,
// "wait":N} make a call wait until N calls of its group have started (at
// most 5 s: a call that waits in vain says so in its result, which is
// how a test sees calls that did not overlap). "fail" fails the tool;
// "block" waits for the run's context to end.
func (z *rendezvous) probe(name string, k toolkit.EffectKind) *probeTool {
	return &probeTool{FakeTool: agenttest.FakeTool{Name: name, Kind: k}, z: z}
}

type probeTool struct {
	agenttest.FakeTool
	z *rendezvous
}

type probeArgs struct {
	Command string `json:"command"`
	Path    string `json:"path"`
	Wait    int    `json:"wait"`
	Fail    bool   `json:"fail"`
	Block   bool   `json:"block"`
}

func (p *probeTool) Run(ctx context.Context, raw json.RawMessage) (toolkit.Result, error) {
	var a probeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return toolkit.Result{}, err
	}
	z := p.z
	z.mu.Lock()
	z.log = append(z.log, "start "+a.Command)
	z.running++
	z.peak = max(z.peak, z.running)
	z.started[a.Path]++
	close(z.changed)
	z.changed = make(chan struct{})
	z.mu.Unlock()
	defer func() {
		z.mu.Lock()
		z.log = append(z.log, "end "+a.Command)
		z.running--
		z.mu.Unlock()
	}()
	if a.Block {
		<-ctx.Done()
		return toolkit.Result{}, ctx.Err()
	}
	deadline := time.After(5 * time.Second)
	for {
		z.mu.Lock()
		n, ch := z.started[a.Path], z.changed
		z.mu.Unlock()
		if n >= a.Wait && a.Fail {
			return toolkit.Result{}, errors.New("disk on fire")
		}
		if n >= a.Wait {
			return toolkit.Result{Content: "done " + a.Command}, nil
		}
		select {
		case <-ch:
		case <-deadline:
			return toolkit.Result{Content: fmt.Sprintf("alone: %d of %d started", n, a.Wait)}, nil
		}
	}
}

// Log is the record of starts and ends.
func (z *rendezvous) Log() []string {
	z.mu.Lock()
	defer z.mu.Unlock()
	return append([]string(nil), z.log...)
}

// readOnlyJudge allows every call, read-only when the tool's effects are
// reads, denies the commands in deny and asks about those in ask.
func readOnlyJudge(deny, ask map[string]bool) agent.Judge {
	return func(tool string, eff toolkit.Effects) agent.Verdict {
		switch {
		case deny[eff.Command]:
			return agent.Verdict{Kind: agent.VerdictDeny, Rule: "r", Fact: eff.Command, Reason: "no", ReadOnly: eff.Kind == toolkit.EffectRead}
		case ask[eff.Command]:
			return agent.Verdict{Kind: agent.VerdictAsk, Rule: "r", Fact: eff.Command, ReadOnly: eff.Kind == toolkit.EffectRead}
		}
		return agent.Verdict{Kind: agent.VerdictAllow, Rule: "all", ReadOnly: eff.Kind == toolkit.EffectRead}
	}
}

// pcall is a probe call: tool, id, group, how many of the group to wait
// for, and extra arguments.
func pcall(tool, id, group string, wait int, extra ...string) llmtest.ToolCall {
	args := fmt.Sprintf(`{"command":%q,"path":%q,"wait":%d%s}`, id, group, wait, strings.Join(extra, ""))
	return agenttest.Call(id, tool, args)
}

// index returns the position of s in log, or -1.
func index(log []string, s string) int {
	for i, l := range log {
		if l == s {
			return i
		}
	}
	return -1
}

// before reports whether every a in log comes before every b.
func before(log []string, as, bs []string) bool {
	for _, a := range as {
		for _, b := range bs {
			if ia, ib := index(log, a), index(log, b); ia < 0 || ib < 0 || ia > ib {
				return false
			}
		}
	}
	return true
}

func TestBatchRules(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		calls    []llmtest.ToolCall
		o        agent.Options
		deny     map[string]bool
		results  []string
		order    [][2][]string // each: every first before every second
		peak     int
		errorHas string
	}{
		"consecutive reads run at once": {
			calls:   []llmtest.ToolCall{pcall("read", "r1", "a", 3), pcall("read", "r2", "a", 3), pcall("read", "r3", "a", 3)},
			results: []string{"r1 ok: done r1", "r2 ok: done r2", "r3 ok: done r3"},
			peak:    3,
		},
		"a write between reads is a barrier": {
			calls: []llmtest.ToolCall{pcall("read", "r1", "a", 2), pcall("read", "r2", "a", 2), pcall("write", "w3", "w", 1),
				pcall("read", "r4", "b", 2), pcall("read", "r5", "b", 2)},
			results: []string{"r1 ok: done r1", "r2 ok: done r2", "w3 ok: done w3", "r4 ok: done r4", "r5 ok: done r5"},
			order: [][2][]string{
				{{"end r1", "end r2"}, {"start w3"}},
				{{"end w3"}, {"start r4", "start r5"}},
			},
			peak: 2,
		},
		"a shell command the judge cannot call read-only is a barrier": {
			calls:   []llmtest.ToolCall{pcall("read", "r1", "a", 1), pcall("bash", "b2", "b", 1), pcall("read", "r3", "c", 1)},
			results: []string{"r1 ok: done r1", "b2 ok: done b2", "r3 ok: done r3"},
			order:   [][2][]string{{{"end r1"}, {"start b2"}}, {{"end b2"}, {"start r3"}}},
			peak:    1,
		},
		"the bound caps the calls at once": {
			calls: []llmtest.ToolCall{pcall("read", "r1", "a", 2), pcall("read", "r2", "a", 2), pcall("read", "r3", "b", 2),
				pcall("read", "r4", "b", 2)},
			o:       agent.Options{Parallel: 2},
			results: []string{"r1 ok: done r1", "r2 ok: done r2", "r3 ok: done r3", "r4 ok: done r4"},
			peak:    2,
		},
		"parallel 1 runs them one after another": {
			calls:   []llmtest.ToolCall{pcall("read", "r1", "a", 1), pcall("read", "r2", "a", 1)},
			o:       agent.Options{Parallel: 1},
			results: []string{"r1 ok: done r1", "r2 ok: done r2"},
			order:   [][2][]string{{{"end r1"}, {"start r2"}}},
			peak:    1,
		},
		"a denial inside a batch; the others run together": {
			calls:   []llmtest.ToolCall{pcall("read", "r1", "a", 2), pcall("read", "r2", "a", 2), pcall("read", "r3", "a", 2)},
			deny:    map[string]bool{"r2": true},
			results: []string{"r1 ok: done r1", "r2 error: Denied by policy rule r: r2 (no). Do not retry variants of this command; use another approach or stop.", "r3 ok: done r3"},
			peak:    2,
		},
		"a bad call inside a batch gets its error in its place": {
			calls:   []llmtest.ToolCall{pcall("read", "r1", "a", 2), agenttest.Call("x2", "nosuch", `{}`), pcall("read", "r3", "a", 2)},
			results: []string{"r1 ok: done r1", `x2 error: Unknown tool "nosuch". The available tools are: bash, read, write.`, "r3 ok: done r3"},
			peak:    2,
		},
		"a failure inside a batch: every call gets its result, the run ends after": {
			calls: []llmtest.ToolCall{pcall("read", "r1", "a", 3), pcall("read", "r2", "a", 3, `,"fail":true`), pcall("read", "r3", "a", 3),
				pcall("write", "w4", "w", 1)},
			results:  []string{"r1 ok: done r1", "r2 error: The tool failed: disk on fire", "r3 ok: done r3", "w4 error: Not run: the run stopped before this call (tool read: disk on fire)."},
			peak:     3,
			errorHas: "disk on fire",
		},
		"--max-tool-calls reached inside a batch": {
			calls: []llmtest.ToolCall{pcall("read", "r1", "a", 2), pcall("read", "r2", "a", 2), pcall("read", "r3", "a", 1),
				pcall("read", "r4", "a", 1)},
			o: agent.Options{Limits: agent.Limits{MaxToolCalls: 2}},
			results: []string{"r1 ok: done r1", "r2 ok: done r2", "r3 error: Not run: the run stopped before this call (reached --max-tool-calls 2).",
				"r4 error: Not run: the run stopped before this call (reached --max-tool-calls 2)."},
			peak:     2,
			errorHas: "--max-tool-calls 2",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			z := newRendezvous()
			script := llmtest.Script{Turns: []llmtest.Turn{{ToolCalls: tc.calls}, {Text: []string{"done"}}}}
			r := agenttest.Run(t, context.Background(), script, withJudge(tc.o, readOnlyJudge(tc.deny, nil)),
				z.probe("read", toolkit.EffectRead), z.probe("write", toolkit.EffectWrite), z.probe("bash", toolkit.EffectExecute))
			if tc.errorHas == "" && r.Err != nil || tc.errorHas != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), tc.errorHas)) {
				t.Fatalf("run error %v, want %q", r.Err, tc.errorHas)
			}
			if got := lastResults(r); strings.Join(got, "\n") != strings.Join(tc.results, "\n") {
				t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.results, "\n"))
			}
			log := z.Log()
			for _, o := range tc.order {
				if !before(log, o[0], o[1]) {
					t.Errorf("want %v before %v; log %v", o[0], o[1], log)
				}
			}
			if z.peak != tc.peak {
				t.Errorf("%d calls ran at once at most, want %d; log %v", z.peak, tc.peak, log)
			}
			checkEvents(t, r, tc.results)
		})
	}
}

// withJudge is o with the judge j.
func withJudge(o agent.Options, j agent.Judge) agent.Options {
	o.Judge = j
	return o
}

// lastResults are the tool results of the conversation's last message,
// as "ID ok: CONTENT" or "ID error: CONTENT".
func lastResults(r agenttest.Result) []string {
	msgs := r.Agent.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		var out []string
		for _, b := range msgs[i].Content {
			if b.Kind == llm.BlockToolResult {
				mark := "ok"
				if b.IsError {
					mark = "error"
				}
				out = append(out, b.ToolUseID+" "+mark+": "+b.Content)
			}
		}
		if out != nil {
			return out
		}
	}
	return nil
}

// checkEvents checks that every call that was not stopped before it
// (its result) has one tool_call event, in call order, and one
// tool_result event.
func checkEvents(t *testing.T, r agenttest.Result, results []string) {
	t.Helper()
	var ids []string
	for _, ev := range r.Kinds(agent.EventToolCall) {
		ids = append(ids, ev.Tool.ID)
	}
	var want []string
	for _, res := range results {
		if !strings.Contains(res, "the run stopped before this call") {
			want = append(want, strings.Fields(res)[0])
		}
	}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("tool_call events %v, want %v", ids, want)
	}
	seen := map[string]int{}
	for _, ev := range r.Kinds(agent.EventToolResult) {
		seen[ev.Tool.ID]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("call %s has %d tool_result events, want 1", id, seen[id])
		}
	}
}

func TestBatchCancelledMidBatch(t *testing.T) {
	t.Parallel()
	z := newRendezvous()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		// Cancel once both blocking calls have started.
		for {
			z.mu.Lock()
			n, ch := z.started["a"], z.changed
			z.mu.Unlock()
			if n >= 2 {
				cancel(errors.New("interrupted by SIGINT"))
				return
			}
			select {
			case <-ch:
			case <-time.After(5 * time.Second):
				cancel(errors.New("never started"))
				return
			}
		}
	}()
	calls := []llmtest.ToolCall{pcall("read", "r1", "a", 0, `,"block":true`), pcall("read", "r2", "a", 0, `,"block":true`),
		pcall("write", "w3", "w", 1)}
	script := llmtest.Script{Turns: []llmtest.Turn{{ToolCalls: calls}, {Text: []string{"done"}}}}
	r := agenttest.Run(t, ctx, script, agent.Options{Judge: readOnlyJudge(nil, nil)},
		z.probe("read", toolkit.EffectRead), z.probe("write", toolkit.EffectWrite))
	if r.Err == nil || !strings.Contains(r.Err.Error(), "interrupted by SIGINT") {
		t.Fatalf("run error %v", r.Err)
	}
	var got []string
	for _, m := range r.Agent.Messages() {
		for _, b := range m.Content {
			if b.ToolUseID != "" {
				got = append(got, b.ToolUseID+": "+b.Content)
			}
		}
	}
	want := []string{"r1: Interrupted: the run was stopped while this call ran.", "r2: Interrupted: the run was stopped while this call ran.",
		"w3: Not run: the run stopped before this call (interrupted by SIGINT)."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if z.peak != 2 {
		t.Errorf("peak %d, want 2", z.peak)
	}
}

// orderHooks records the hooks' calls and checks that none overlap.
type orderHooks struct {
	z      *rendezvous
	deny   string
	mu     sync.Mutex
	inside bool
	bad    bool
}

func (h *orderHooks) enter(what string) {
	h.mu.Lock()
	if h.inside {
		h.bad = true
	}
	h.inside = true
	h.mu.Unlock()
	h.z.mu.Lock()
	h.z.log = append(h.z.log, what)
	h.z.mu.Unlock()
}

func (h *orderHooks) leave() {
	h.mu.Lock()
	h.inside = false
	h.mu.Unlock()
}

func (h *orderHooks) BeforeTool(_ context.Context, _ int, call agent.ToolCall, _ int) agent.HookOutcome {
	h.enter("before " + call.ID)
	defer h.leave()
	if call.ID == h.deny {
		return agent.HookOutcome{Decision: agent.HookDeny, Hook: "guard", Reason: "not this one"}
	}
	return agent.HookOutcome{Decision: agent.HookAllow}
}

func (h *orderHooks) AfterTool(_ context.Context, _ int, call agent.ToolCall, res toolkit.Result) toolkit.Result {
	h.enter("after " + call.ID)
	defer h.leave()
	time.Sleep(time.Millisecond) // long enough for an overlap to show
	res.Content += " +after"
	return res
}

func (h *orderHooks) Stop(context.Context, int) string { return "" }

func TestBatchHooks(t *testing.T) {
	t.Parallel()
	z := newRendezvous()
	h := &orderHooks{z: z, deny: "r2"}
	calls := []llmtest.ToolCall{pcall("read", "r1", "a", 3), pcall("read", "r2", "a", 3), pcall("read", "r3", "a", 3), pcall("read", "r4", "a", 3)}
	script := llmtest.Script{Turns: []llmtest.Turn{{ToolCalls: calls}, {Text: []string{"done"}}}}
	r := agenttest.Run(t, context.Background(), script, agent.Options{Judge: readOnlyJudge(nil, nil), Hooks: h}, z.probe("read", toolkit.EffectRead))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := []string{"r1 ok: done r1 +after", "r2 error: Denied by hook guard: not this one", "r3 ok: done r3 +after", "r4 ok: done r4 +after"}
	if got := r.Requests[1].Results(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	log := z.Log()
	// Every before_tool hook, in call order, before any tool starts.
	if !before(log, []string{"before r1", "before r2", "before r3", "before r4"}, []string{"start r1", "start r3", "start r4"}) ||
		index(log, "before r1") > index(log, "before r2") || index(log, "before r3") > index(log, "before r4") {
		t.Errorf("before hooks not first, in order: %v", log)
	}
	// Each after_tool hook once its call ended.
	for _, id := range []string{"r1", "r3", "r4"} {
		if index(log, "end "+id) > index(log, "after "+id) {
			t.Errorf("after hook of %s before it ended: %v", id, log)
		}
	}
	if h.bad {
		t.Errorf("hooks ran at once: %v", log)
	}
	if z.peak != 3 {
		t.Errorf("peak %d, want 3: %v", z.peak, log)
	}
}

// allowAsker is a person who allows every call asked about.
type allowAsker struct{}

func (allowAsker) Ask(context.Context, llm.Block, toolkit.Effects, agent.Verdict) agent.Verdict {
	return agent.Verdict{Kind: agent.VerdictAllow, Rule: "person"}
}

func TestBatchAskIsABarrier(t *testing.T) {
	t.Parallel()
	z := newRendezvous()
	asker := allowAsker{}
	calls := []llmtest.ToolCall{pcall("read", "r1", "a", 1), pcall("read", "r2", "b", 1), pcall("read", "r3", "c", 1)}
	script := llmtest.Script{Turns: []llmtest.Turn{{ToolCalls: calls}, {Text: []string{"done"}}}}
	r := agenttest.Run(t, context.Background(), script, agent.Options{Judge: readOnlyJudge(nil, map[string]bool{"r2": true}), Ask: asker},
		z.probe("read", toolkit.EffectRead))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	log := z.Log()
	if !before(log, []string{"end r1"}, []string{"start r2"}) || !before(log, []string{"end r2"}, []string{"start r3"}) {
		t.Errorf("the asked call did not run alone: %v", log)
	}
}

// spanAround records the operations under way, by call id.
type spanAround struct {
	mu   sync.Mutex
	open map[string]bool
	peak int
	bad  []string
}

func (s *spanAround) Around(ctx context.Context, op agent.Op, do func(context.Context) error) error {
	if op.Kind != agent.OpToolCall {
		return do(ctx)
	}
	s.mu.Lock()
	s.open[op.Call.ID] = true
	s.peak = max(s.peak, len(s.open))
	s.mu.Unlock()
	err := do(ctx)
	s.mu.Lock()
	delete(s.open, op.Call.ID)
	s.mu.Unlock()
	return err
}

// event checks that a tool event comes while its call's operation runs.
func (s *spanAround) event(ev agent.Event) {
	if ev.Tool == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open[ev.Tool.ID] {
		s.bad = append(s.bad, fmt.Sprintf("%v of %s outside its operation", ev.Kind, ev.Tool.ID))
	}
}

// TestBatchAround: calls run at once run inside operations of their own
// that overlap, and each call's events come while its operation runs.
func TestBatchAround(t *testing.T) {
	t.Parallel()
	z := newRendezvous()
	s := &spanAround{open: map[string]bool{}}
	calls := []llmtest.ToolCall{pcall("read", "r1", "a", 3), pcall("read", "r2", "a", 3), pcall("read", "r3", "a", 3), pcall("write", "w4", "w", 1)}
	script := llmtest.Script{Turns: []llmtest.Turn{{ToolCalls: calls}, {Text: []string{"done"}}}}
	r := agenttest.Run(t, context.Background(), script, agent.Options{Judge: readOnlyJudge(nil, nil), Around: s, Emit: s.event},
		z.probe("read", toolkit.EffectRead), z.probe("write", toolkit.EffectWrite))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if want := []string{"r1 ok: done r1", "r2 ok: done r2", "r3 ok: done r3", "w4 ok: done w4"}; strings.Join(r.Requests[1].Results(), "\n") != strings.Join(want, "\n") {
		t.Errorf("results %v", r.Requests[1].Results())
	}
	if s.peak != 3 || len(s.bad) > 0 || len(s.open) != 0 {
		t.Errorf("operations at once %d, want 3; still open %v; %v", s.peak, s.open, s.bad)
	}
}
