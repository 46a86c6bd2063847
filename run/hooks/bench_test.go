//go:build unix

package hooks

import (
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
)

// BenchmarkHookTrue is what a `true` before_tool hook adds to a tool call:
// encoding its input, starting `sh -c true` in its own process group with
// the scrubbed environment, its pipes, waiting and killing the group.
// Target: no more than the cost of spawning it. The floor is the same
// shell with the same environment started with os/exec in a new session,
// in the same iteration; x-floor is the ratio.
func BenchmarkHookTrue(b *testing.B) {
	dir := b.TempDir()
	hooks := config.Hooks{BeforeTool: []config.Hook{{Command: "true", Timeout: 30 * time.Second}}}
	r := New(Options{Hooks: hooks, Workspace: dir, SessionID: "bench", Env: os.Environ(), Emit: func(agent.Event) {}})
	input := json.RawMessage(`{"command":"go test ./..."}`)
	sh, env := r.sh.Shell(), r.sh.Environ()
	hook := func() time.Duration {
		start := time.Now()
		if out := r.BeforeTool(b.Context(), 1, agent.ToolCall{ID: "call_1", Name: "bash", Input: input}, 0); out.Decision != agent.HookAllow {
			b.Fatalf("hook: %+v", out)
		}
		return time.Since(start)
	}
	spawn := func() time.Duration {
		start := time.Now()
		cmd := exec.Command(sh, "-c", "true")
		cmd.Dir, cmd.Env = dir, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	hook()
	spawn()
	var ours, base time.Duration
	for b.Loop() {
		ours += hook()
		b.StopTimer()
		base += spawn()
		b.StartTimer()
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N), "µs/hook")
	b.ReportMetric(float64(base.Microseconds())/float64(b.N), "floor-µs/spawn")
	b.ReportMetric(float64(ours)/float64(base), "x-floor")
}
