package run

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/hooks"
)

// TestVerdictThroughTheSeam: a verdict crosses agent.Asker and back
// unchanged, the policy's result riding in Detail (a person's "always"
// answer records it); an Asker's own verdict has no result.
func TestVerdictThroughTheSeam(t *testing.T) {
	t.Parallel()
	res := policy.Result{Decision: policy.Ask, Rule: "tools.write", Fact: "write: a.txt", Reason: "writes"}
	for name, v := range map[string]verdict{
		"ask":   {Kind: verdictAsk, Rule: "tools.write", Fact: "write: a.txt", Reason: "writes", Message: "m", Allow: []string{"write:a.txt"}, result: res},
		"allow": {Kind: verdictAllow, Rule: ruleTerminalAllow, Fact: "x", Reason: "you said yes"},
		"deny":  {Kind: verdictDeny, Rule: "r", Message: "no"},
	} {
		if got := runVerdict(agentVerdict(v)); !reflect.DeepEqual(got, v) {
			t.Errorf("%s: %+v, want %+v", name, got, v)
		}
	}
	if got := agentVerdict(verdict{Kind: verdictAsk, result: res}); got.Kind != agent.VerdictAsk || !reflect.DeepEqual(got.Detail, res) {
		t.Errorf("agent verdict %+v", got)
	}
	if got := runVerdict(agent.Verdict{Kind: agent.VerdictAllow, Detail: "not a policy result"}); !reflect.DeepEqual(got.result, policy.Result{}) {
		t.Errorf("foreign detail became %+v", got.result)
	}
}

// TestHookSeam: the [[hooks]] runner behind agent.Hooks: none is nil (the
// loop then skips the hooks' work), and a runner's decisions come through.
func TestHookSeam(t *testing.T) {
	t.Parallel()
	if asHooks(nil) != nil {
		t.Fatal("no hooks: asHooks is not nil")
	}
	dir := t.TempDir()
	var evs []Event
	r := hooks.New(hooks.Options{Hooks: config.Hooks{
		BeforeTool: []config.Hook{{Name: "guard", Command: "echo no >&2; exit 2", Timeout: time.Minute}},
		Stop:       []config.Hook{{Name: "more", Command: "echo again >&2; exit 2", Timeout: time.Minute}},
	}, Workspace: dir, Env: []string{"PATH=/usr/bin:/bin"}, Emit: func(ev Event) { evs = append(evs, ev) }})
	h := asHooks(r)
	out := h.BeforeTool(context.Background(), 1, agent.ToolCall{ID: "c1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}, 0)
	if out.Decision != agent.HookDeny || out.Hook != "guard" || out.Reason != "no" {
		t.Errorf("before: %+v", out)
	}
	if back := h.Stop(context.Background(), 1); back != "The stop hook more does not let the run end yet:\nagain" {
		t.Errorf("stop: %q", back)
	}
	if len(evs) != 2 {
		t.Errorf("%d hook events, want 2", len(evs))
	}
}
