package run

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The script commands in this file run a program as a child process the
// script controls more closely than exec does: a signal at a given
// moment, a late stdin, a closed stdout.

// scriptEnv are the script variables a child program started by these
// commands gets; NO_COLOR only when it is set to something.
var scriptEnv = []string{"PATH", "HOME", "TMPDIR", "WORK", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "NO_COLOR", "GORACE", "XDG_STATE_HOME",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "TRACEPARENT"}

// programCmd prepares PROGRAM (found in the script's PATH, where the
// registered commands live) to run in the script's directory with the
// script's environment.
func programCmd(ts *testscript.TestScript, name string, args ...string) *exec.Cmd {
	prog, err := lookPathIn(name, ts.Getenv("PATH"))
	ts.Check(err)
	cmd := exec.Command(prog, args...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range scriptEnv {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	return cmd
}

// withStdin takes a leading "-stdin FILE" off a command's arguments and
// returns what opens FILE as the program's stdin (nothing without it).
func withStdin(ts *testscript.TestScript, args []string) (rest []string, open func(*exec.Cmd)) {
	if len(args) < 2 || args[0] != "-stdin" {
		return args, func(*exec.Cmd) {}
	}
	name := args[1]
	return args[2:], func(cmd *exec.Cmd) {
		f, err := os.Open(ts.MkAbs(name))
		ts.Check(err)
		ts.Defer(func() { f.Close() })
		cmd.Stdin = f
	}
}

// exitCodeOf returns the exit code of a finished program, or fails the
// script when it did not exit normally (killed by a signal, not started).
func exitCodeOf(ts *testscript.TestScript, err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	default:
		ts.Fatalf("program did not exit normally: %v", err)
		return -1
	}
}

// cmdSignalAfter starts PROGRAM, waits until it is ready, sends the
// signal (INT, TERM or KILL) and checks the exit code, or with CODE
// "killed" that the signal itself ended the program:
// signalafter [-stdin FILE] SIGNAL READY CODE PROGRAM [ARGS...]. READY is a file that
// must exist and not be empty, or stdout:TEXT, text the program must have
// written on stdout. The program's output becomes the script's stdout and
// stderr.
func cmdSignalAfter(ts *testscript.TestScript, neg bool, args []string) {
	args, setStdin := withStdin(ts, args)
	if neg || len(args) < 4 {
		ts.Fatalf("usage: signalafter [-stdin FILE] INT|TERM|KILL FILE|stdout:TEXT CODE|killed PROGRAM [ARGS...]")
	}
	sig, ok := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL}[args[0]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[0])
	}
	args = args[1:]
	killed := args[1] == "killed"
	want := 0
	if !killed {
		var err error
		want, err = strconv.Atoi(args[1])
		ts.Check(err)
	}
	cmd := programCmd(ts, args[2], args[3:]...)
	setStdin(cmd)
	readyText, onStdout := strings.CutPrefix(args[0], "stdout:")
	stdout := &notifyingBuffer{want: readyText, seen: make(chan struct{})}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	ts.Check(cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ready := func() bool {
		if onStdout {
			select {
			case <-stdout.seen:
				return true
			default:
				return false
			}
		}
		fi, err := os.Stat(ts.MkAbs(args[0]))
		return err == nil && fi.Size() > 0
	}
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		select {
		case err := <-done:
			ts.Fatalf("program ended before %s: %v\n%s", args[0], err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			ts.Fatalf("not ready within 30s: %s", args[0])
		}
	}
	ts.Check(cmd.Process.Signal(sig))
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		ts.Fatalf("program did not exit within 30s of %v", sig)
	}
	fmt.Fprint(ts.Stdout(), stdout.String())
	io.Copy(ts.Stderr(), &stderr)
	if killed {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != sig {
			ts.Fatalf("want the program killed by %v, got %v", sig, err)
		}
		return
	}
	if got := exitCodeOf(ts, err); got != want {
		ts.Fatalf("exit code %d after %v, want %d\n%s", got, sig, want, stderr.String())
	}
}

// cmdBrokenStdout runs PROGRAM with its stdout on a pipe nobody reads any
// more (as in `rubichan exec … | head -1` once head has exited) and checks
// its exit code: brokenstdout [-stdin FILE] CODE PROGRAM [ARGS...]. The
// program's stderr becomes the script's stderr.
func cmdBrokenStdout(ts *testscript.TestScript, neg bool, args []string) {
	args, setStdin := withStdin(ts, args)
	if neg || len(args) < 2 {
		ts.Fatalf("usage: brokenstdout [-stdin FILE] CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	cmd := programCmd(ts, args[1], args[2:]...)
	setStdin(cmd)
	r, w, err := os.Pipe()
	ts.Check(err)
	r.Close()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Start()
	w.Close()
	ts.Check(err)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		ts.Fatalf("program did not exit within 30s with its stdout closed\n%s", stderr.String())
	}
	io.Copy(ts.Stderr(), &stderr)
	if got := exitCodeOf(ts, err); got != want {
		ts.Fatalf("exit code %d, want %d\n%s", got, want, stderr.String())
	}
}

// cmdStdinLate runs PROGRAM with a pipe on stdin that stays silent until
// the program says on stderr that it waits for it, then writes TEXT and
// closes the pipe: stdinlate TEXT PROGRAM [ARGS...]. The exit code must be
// 0; the program's output becomes the script's stdout and stderr.
func cmdStdinLate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: stdinlate TEXT PROGRAM [ARGS...]")
	}
	cmd := programCmd(ts, args[1], args[2:]...)
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	var stdout bytes.Buffer
	stderr := &notifyingBuffer{want: "waiting for standard input", seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	ts.Check(cmd.Start())
	select {
	case <-stderr.seen:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		ts.Fatalf("no waiting notice within 20s:\n%s", stderr.String())
	}
	io.WriteString(stdin, args[0])
	stdin.Close()
	err = cmd.Wait()
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	ts.Check(err)
}

// notifyingBuffer collects output and closes seen once it holds want.
type notifyingBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	done bool
}

func (b *notifyingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if !b.done && strings.Contains(b.buf.String(), b.want) {
		b.done = true
		close(b.seen)
	}
	return len(p), nil
}

func (b *notifyingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in PATH", name)
}

// cmdPidGone checks that the process whose pid FILE holds is gone (or a
// zombie waiting for a reaper): pidgone FILE.
func cmdPidGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pidgone FILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if !processAlive(pid) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("process %d is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	// The state follows the parenthesised command name.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
