//go:build unix

package toolkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processGone reports whether pid no longer runs. A zombie counts as gone:
// it is dead and only waits for its parent (often init, which in some
// containers never reaps) to collect it.
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	i := bytes.LastIndexByte(stat, ')') // the command name may hold spaces and parentheses
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// waitGone fails the test unless every pid is gone within five seconds.
func waitGone(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for !processGone(pid) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d still running after the call returned", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// waitForFile polls for path to exist, for at most ten seconds.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// parsePIDs parses the whitespace-separated process ids in s.
func parsePIDs(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Fields(s) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("no pid in %q: %v", s, err)
		}
		out = append(out, pid)
	}
	if len(out) == 0 {
		t.Fatalf("no pids in %q", s)
	}
	return out
}

func TestBashTimeoutKillsBackgroundChild(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	start := time.Now()
	// The shell exits at once, but sleep holds the output pipe open.
	res := callBash(t, t.Context(), b, "sleep 100 & echo $!", 0.5)
	elapsed := time.Since(start)
	if elapsed < 500*time.Millisecond || elapsed > 500*time.Millisecond+testGrace+2*time.Second {
		t.Errorf("call took %v, want about its 500ms timeout", elapsed)
	}
	if !res.IsError || !strings.Contains(res.Content, "[timed out after 500ms; the process group got SIGTERM]") {
		t.Errorf("result %+v, want a timed-out error", res)
	}
	line, _, _ := strings.Cut(res.Content, "\n")
	waitGone(t, parsePIDs(t, line)...)
}

func TestBashKillsLeftoversWhenCommandEnds(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	start := time.Now()
	res := callBash(t, t.Context(), b, "sleep 100 >/dev/null 2>&1 & echo $!", 30)
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("call took %v; a background child without the output pipe must not hold it", elapsed)
	}
	if res.IsError || res.Meta.ExitCode == nil || *res.Meta.ExitCode != 0 {
		t.Errorf("result %+v, want success", res)
	}
	waitGone(t, parsePIDs(t, res.Content)...)
}

func TestBashKillsGroupIgnoringSIGTERM(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	start := time.Now()
	res := callBash(t, t.Context(), b, "trap '' TERM; sleep 100 & echo $$ $!; wait", 0.3)
	elapsed := time.Since(start)
	if elapsed < 300*time.Millisecond+testGrace {
		t.Errorf("call took %v; the shell ignores SIGTERM, so it must last the timeout and the %v grace period", elapsed, testGrace)
	}
	if elapsed > 300*time.Millisecond+testGrace+3*time.Second {
		t.Errorf("call took %v, far past its timeout and grace period", elapsed)
	}
	want := "[timed out after 300ms; the process group got SIGTERM, then SIGKILL after 300ms]\n[signal: killed]"
	if !res.IsError || !strings.HasSuffix(res.Content, want) || res.Meta.ExitCode != nil {
		t.Errorf("result %+v, want content ending %q and no exit code", res, want)
	}
	line, _, _ := strings.Cut(res.Content, "\n")
	waitGone(t, parsePIDs(t, line)...)
}

func TestBashCancelStopsGroupWithinGrace(t *testing.T) {
	t.Parallel()
	const grace = 3 * time.Second // SIGKILL would come this late; SIGTERM must do
	b, dir := newTestBash(t, func(c *BashConfig) { c.GracePeriod = grace })
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := b.Run(ctx, json.RawMessage(`{"command":"echo $$ > pids; sleep 100 & echo $! >> pids; touch started; wait"}`))
		done <- outcome{res, err}
	}()
	waitForFile(t, filepath.Join(dir, "started"))
	canceled := time.Now()
	cancel(errors.New("interrupted"))
	var got outcome
	select {
	case got = <-done:
	case <-time.After(grace + 5*time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	if elapsed := time.Since(canceled); elapsed >= grace {
		t.Errorf("Run returned %v after cancel, want within the %v grace period", elapsed, grace)
	}
	if got.err != nil || !got.res.IsError || !strings.Contains(got.res.Content, "[cancelled (interrupted); the process group got SIGTERM]") {
		t.Errorf("Run = %+v, %v; want a cancelled error result", got.res, got.err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, parsePIDs(t, string(data))...)
}

// TestBashAbandonsPipeHeldOutsideGroup checks that a process which left the
// group (setsid) while holding the output pipe cannot hang the call.
func TestBashAbandonsPipeHeldOutsideGroup(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid is not installed")
	}
	b, _ := newTestBash(t, nil)
	start := time.Now()
	res := callBash(t, t.Context(), b, "setsid sh -c 'echo $$; exec sleep 100' &", 0.2)
	elapsed := time.Since(start)
	line, _, _ := strings.Cut(res.Content, "\n")
	for _, pid := range parsePIDs(t, line) {
		_ = syscall.Kill(pid, syscall.SIGKILL) // it escaped the group on purpose
	}
	if elapsed > 200*time.Millisecond+2*testGrace+3*time.Second {
		t.Errorf("call took %v", elapsed)
	}
	if !res.IsError || !strings.Contains(res.Content, "SIGKILL after 300ms; output still held open by a process outside the group was abandoned]") {
		t.Errorf("result %+v, want the pipe abandoned", res)
	}
}
