package hooks

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/toolkit"
)

// TestParseHookOutput checks what a before_tool hook's stdout decides, in
// rubichan's short form and in Claude Code's hookSpecificOutput form.
func TestParseHookOutput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, stdout string
		deny         bool
		reason       string
		updated      string
		err          string
	}{
		{"empty", "", false, "", "", ""},
		{"plain text is a log line", "checked 3 files\n", false, "", "", ""},
		{"deny", `{"decision":"deny","reason":"no"}`, true, "no", "", ""},
		{"claude block", `{"decision":"block","reason":"nope"}`, true, "nope", "", ""},
		{"claude permissionDecision", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"why"}}`, true, "why", "", ""},
		{"deny without reason", `{"decision":"deny"}`, true, "(the hook gave no reason)", "", ""},
		{"approve goes on", `{"decision":"approve"}`, false, "", "", ""},
		{"updated_input", `{"updated_input":{"command":"ls"}}`, false, "", `{"command":"ls"}`, ""},
		{"claude updatedInput", `{"hookSpecificOutput":{"updatedInput":{"path":"a"}}}`, false, "", `{"path":"a"}`, ""},
		{"null updated_input", `{"updated_input":null}`, false, "", "", ""},
		{"updated_input not an object", `{"updated_input":[1]}`, false, "", "", "not a JSON object"},
		{"broken JSON", `{"decision":`, false, "", "", "not a valid JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, err := parseHookOutput(c.stdout)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.denies() != c.deny || c.deny && out.reason() != c.reason || string(out.updated()) != c.updated {
				t.Errorf("deny %v reason %q updated %s, want %v %q %s", out.denies(), out.reason(), out.updated(), c.deny, c.reason, c.updated)
			}
		})
	}
}

// TestRunnerSeam checks the Runner through the engine's seam: each event
// gives its hook Claude Code's hook_event_name on stdin and reports one
// hook event through Options.Emit.
func TestRunnerSeam(t *testing.T) {
	t.Parallel()
	echo := []config.Hook{{Command: "cat >&2; exit 2", Timeout: 30 * time.Second}}
	call := agent.ToolCall{ID: "call_1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}
	for _, c := range []struct {
		event    string
		hooks    config.Hooks
		run      func(r *Runner) string
		name     string
		decision agent.HookDecision
	}{
		{"before_tool", config.Hooks{BeforeTool: echo}, func(r *Runner) string {
			return r.BeforeTool(t.Context(), 1, call, 0).Reason
		}, "PreToolUse", agent.HookDeny},
		{"after_tool", config.Hooks{AfterTool: echo}, func(r *Runner) string {
			return r.AfterTool(t.Context(), 1, call, toolkit.Result{Content: "out"}).Content
		}, "PostToolUse", agent.HookAppend},
		{"stop", config.Hooks{Stop: echo}, func(r *Runner) string {
			return r.Stop(t.Context(), 1)
		}, "Stop", agent.HookContinue},
	} {
		t.Run(c.event, func(t *testing.T) {
			t.Parallel()
			var got []agent.Event
			r := New(Options{Hooks: c.hooks, Workspace: t.TempDir(), SessionID: "s", Env: os.Environ(), Emit: func(e agent.Event) { got = append(got, e) }})
			if out := c.run(r); !strings.Contains(out, `"hook_event_name":"`+c.name+`"`) {
				t.Errorf("the hook's stdin, as it echoed it: %s; want hook_event_name %s", out, c.name)
			}
			if len(got) != 1 || got[0].Kind != agent.EventHook || got[0].Hook.Event != c.event || got[0].Hook.Decision != string(c.decision) {
				t.Errorf("events %+v, want one %s hook event with decision %s", got, c.event, c.decision)
			}
		})
	}
}

// TestNilRunner checks that no hooks give a nil Runner, and that a nil
// Runner (even inside an agent.Hooks) lets every call through.
func TestNilRunner(t *testing.T) {
	t.Parallel()
	if r := New(Options{Workspace: t.TempDir()}); r != nil {
		t.Fatalf("New without hooks = %+v, want nil", r)
	}
	var h agent.Hooks = (*Runner)(nil)
	res := toolkit.Result{Content: "out"}
	if out := h.BeforeTool(t.Context(), 1, agent.ToolCall{Name: "bash"}, 0); out.Decision != agent.HookAllow {
		t.Errorf("BeforeTool = %+v, want allow", out)
	}
	if got := h.AfterTool(t.Context(), 1, agent.ToolCall{Name: "bash"}, res); got.Content != res.Content || got.IsError {
		t.Errorf("AfterTool = %+v, want %+v", got, res)
	}
	if msg := h.Stop(t.Context(), 1); msg != "" {
		t.Errorf("Stop = %q, want \"\"", msg)
	}
}
