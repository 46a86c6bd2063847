package run

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// BenchmarkChatStartupPiped is a scripted chat's whole life when its input
// is empty: the binary runs `rubichan chat` in an empty workspace with a
// session log, opens everything a run needs (configuration, policy,
// workspace, session, tools, loop), finds the end of its input at once
// and exits, all timed. (BenchmarkChatStartup is the start-up a person
// sees, to the prompt on a terminal.) The floor is an empty Go program
// started in the same iteration; cpu-ms is the chat's own user and system
// time, which the machine's load moves less.
func BenchmarkChatStartupPiped(b *testing.B) {
	bin, floor := buildRubichan(b), buildFloor(b)
	ws, state := b.TempDir(), b.TempDir()
	env := append(os.Environ(), "ANTHROPIC_API_KEY=sk-ant-bench-key-0123456789", "XDG_STATE_HOME="+state, "NO_COLOR=1")
	var cpu time.Duration // user + system time of the chat processes
	chat := func() time.Duration {
		cmd := exec.Command(bin, "chat", "--cwd", ws)
		cmd.Env, cmd.Stdin = env, strings.NewReader("")
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("chat: %v\n%s", err, out)
		}
		d := time.Since(start)
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return d
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
	cpu = 0
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
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/1000, "cpu-ms/start")
}

// BenchmarkChatStartupInProcess is what rubichan itself spends from
// run.Main to the first prompt of a chat and back, in the process:
// configuration, policy, workspace, a new session file, tools and loop
// opened and closed again, without the cost of starting a Go program.
func BenchmarkChatStartupInProcess(b *testing.B) {
	ws, state := b.TempDir(), b.TempDir()
	env := fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-bench-key-0123456789", "XDG_STATE_HOME": state, "HOME": state})
	env.Environ = os.Environ
	for b.Loop() {
		var errOut bytes.Buffer
		if code := runMain(context.Background(), []string{"rubichan", "chat", "--cwd", ws}, strings.NewReader(""), io.Discard, &errOut, env); code != 0 {
			b.Fatalf("chat: exit %d\n%s", code, errOut.String())
		}
	}
}
