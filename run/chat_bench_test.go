package run

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// BenchmarkChatStartup is line mode's start-up to its first prompt: the
// binary runs `rubichan chat` in an empty workspace with a session log,
// opens everything a run needs (configuration, policy, workspace,
// session, tools, loop) and finds the end of its input at the first
// prompt; the exit is included. Target: 20 ms. The floor is an empty Go
// program started in the same iteration.
func BenchmarkChatStartup(b *testing.B) {
	bin, floor := buildRubichan(b), buildFloor(b)
	ws, state := b.TempDir(), b.TempDir()
	env := append(os.Environ(), "ANTHROPIC_API_KEY=sk-ant-bench-key-0123456789", "XDG_STATE_HOME="+state, "NO_COLOR=1")
	chat := func() time.Duration {
		cmd := exec.Command(bin, "chat", "--cwd", ws)
		cmd.Env, cmd.Stdin = env, strings.NewReader("")
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("chat: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	empty := func() time.Duration {
		start := time.Now()
		if err := exec.Command(floor).Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	chat() // the page cache
	empty()
	var ours, base time.Duration
	for b.Loop() {
		ours += chat()
		b.StopTimer()
		base += empty()
		b.StartTimer()
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ms/start")
	b.ReportMetric(float64(base.Microseconds())/float64(b.N)/1000, "floor-ms/start")
	b.ReportMetric(float64(ours)/float64(base), "x-floor")
}
