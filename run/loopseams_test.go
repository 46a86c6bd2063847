package run

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/hooks"
)

// TestHookSeam: the [[hooks]] runner behind agent.Hooks: none is nil (the
// loop then skips the hooks' work), and a runner's decisions come through.
func TestHookSeam(t *testing.T) {
	t.Parallel()
	if asHooks(nil) != nil {
		t.Fatal("no hooks: asHooks is not nil")
	}
	dir := t.TempDir()
	var evs []agent.Event
	r := hooks.New(hooks.Options{Hooks: config.Hooks{
		BeforeTool: []config.Hook{{Name: "guard", Command: "echo no >&2; exit 2", Timeout: time.Minute}},
		Stop:       []config.Hook{{Name: "more", Command: "echo again >&2; exit 2", Timeout: time.Minute}},
	}, Workspace: dir, Env: []string{"PATH=/usr/bin:/bin"}, Emit: func(ev agent.Event) { evs = append(evs, ev) }})
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
