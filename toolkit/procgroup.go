package toolkit

import (
	"os/exec"
	"sync"
)

// procGroup is a started command that leads its own process group (its own
// session, on Unix), so that signals reach everything it starts.
//
// Its methods are safe for concurrent use: a watcher may signal the group
// while another goroutine waits for it.
type procGroup struct {
	cmd    *exec.Cmd
	reaper *Reaper // may be nil

	mu     sync.Mutex
	reaped bool // once the leader is reaped its pid may be reused: never signal it again
}

// startGroup starts cmd as the leader of a new process group; r (may be
// nil) learns that the leader is waited for by finish.
func startGroup(cmd *exec.Cmd, r *Reaper) (*procGroup, error) {
	setGroupAttr(cmd)
	if err := r.start(cmd); err != nil {
		return nil, err
	}
	return &procGroup{cmd: cmd, reaper: r}, nil
}

// terminate asks every process in the group to stop (SIGTERM, and SIGCONT
// so that stopped processes see it). It does nothing once the leader has
// been reaped.
func (g *procGroup) terminate() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		_ = terminateGroup(g.cmd.Process.Pid)
	}
}

// kill kills every process in the group (SIGKILL). It does nothing once the
// leader has been reaped.
func (g *procGroup) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		_ = killGroup(g.cmd.Process.Pid)
	}
}

// finish waits for the leader to exit, kills whatever it left running in
// its group, and reaps it, returning [exec.Cmd.Wait]'s error. Call it
// after the output pipe has been read to EOF.
//
// Where the platform can wait without reaping (Linux: waitid with
// WNOWAIT), the leftovers are killed while the leader is still a zombie, so
// the group id cannot have been reused. Elsewhere the leader is reaped
// first and the leftovers are killed right after, which leaves a
// pid-reuse window of a few microseconds.
//
// With a [Reaper], the processes that detached from the group and were
// handed over to this process are killed and reaped too.
func (g *procGroup) finish() error {
	err := g.waitGroup()
	g.reaper.reaped(g.cmd.Process.Pid)
	g.reaper.sweep(g.cmd.Process.Pid)
	return err
}

// waitGroup is finish without the reaper.
func (g *procGroup) waitGroup() error {
	pid := g.cmd.Process.Pid
	if waitExited(pid) == nil {
		g.mu.Lock()
		_ = killGroup(pid)
		g.reaped = true
		g.mu.Unlock()
		return g.cmd.Wait()
	}
	err := g.cmd.Wait()
	g.mu.Lock()
	_ = killGroup(pid)
	g.reaped = true
	g.mu.Unlock()
	return err
}
