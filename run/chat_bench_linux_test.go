package run

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/rubichan/rubichan/run/linemode"
)

// BenchmarkChatStartup is line mode's start-up to its first prompt, as a
// person sees it: the binary runs `rubichan -i` on a pseudo-terminal (its
// standard streams and controlling terminal) in an empty workspace with a
// session log, and the time is that from starting the process to the
// prompt on the terminal. Ctrl-D then ends the chat (not timed). Target:
// 20 ms. The floor is a Go program that writes the prompt and waits, timed
// the same way; cpu-ms is the chat's whole user and system time, exit
// included.
func BenchmarkChatStartup(b *testing.B) {
	bin, floor := buildRubichan(b), buildPromptFloor(b)
	ws, state := b.TempDir(), b.TempDir()
	env := append(os.Environ(), "ANTHROPIC_API_KEY=sk-ant-bench-key-0123456789", "XDG_STATE_HOME="+state, "NO_COLOR=1")
	var ours, base, cpu time.Duration
	prompt := func(path string, args ...string) (time.Duration, *os.ProcessState) {
		cmd := exec.Command(path, args...)
		cmd.Env = env
		d, st, err := timeToPrompt(cmd)
		if err != nil {
			b.Fatalf("%s: %v", filepath.Base(path), err)
		}
		return d, st
	}
	prompt(bin, "-i", "--cwd", ws) // the page cache
	prompt(floor)
	for b.Loop() {
		d, st := prompt(bin, "-i", "--cwd", ws)
		ours += d
		cpu += st.UserTime() + st.SystemTime()
		b.StopTimer()
		d, _ = prompt(floor)
		base += d
		b.StartTimer()
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ms/prompt")
	b.ReportMetric(float64(base.Microseconds())/float64(b.N)/1000, "floor-ms/prompt")
	b.ReportMetric(float64(ours)/float64(base), "x-floor")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/1000, "cpu-ms/start")
}

// timeToPrompt starts cmd on a new pseudo-terminal and returns the time
// until the line-mode prompt shows on it; then it types Ctrl-D and waits
// for the program to end. Each wait is bounded.
func timeToPrompt(cmd *exec.Cmd) (time.Duration, *os.ProcessState, error) {
	start := time.Now()
	ptmx, err := pty.Start(cmd)
	if err != nil {
		return 0, nil, err
	}
	defer ptmx.Close()
	seen := make(chan time.Duration, 1)
	go func() {
		var screen []byte
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			screen = append(screen, buf[:n]...)
			if bytes.Contains(screen, []byte(linemode.Prompt)) {
				seen <- time.Since(start)
				return
			}
			if err != nil {
				close(seen)
				return
			}
		}
	}()
	var d time.Duration
	var ok bool
	select {
	case d, ok = <-seen:
	case <-time.After(10 * time.Second):
	}
	if !ok {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, nil, os.ErrDeadlineExceeded
	}
	ptmx.Write([]byte{4}) // Ctrl-D: the chat ends with status 0
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		err = <-exited
	}
	return d, cmd.ProcessState, err
}

// promptFloorSource is the floor of BenchmarkChatStartup: a Go program
// that writes the prompt on its terminal and waits for a key.
const promptFloorSource = `package main

import "os"

func main() {
	os.Stderr.WriteString("` + linemode.Prompt + `")
	os.Stdin.Read(make([]byte, 1))
}
`

func buildPromptFloor(b *testing.B) string {
	b.Helper()
	return buildProgram(b, promptFloorSource)
}
