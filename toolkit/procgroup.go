package toolkit

import (
	"os/exec"
	"sync"

	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// exitState is how a command ended: an [os.ProcessState], or the
// [sandbox.Status] of a command the sandbox's spawner started.
type exitState interface {
	Exited() bool
	ExitCode() int
	String() string
}

// procGroup is a started command that leads its own process group (its own
// session, on Unix), so that signals reach everything it starts.
//
// Its methods are safe for concurrent use: a watcher may signal the group
// while another goroutine waits for it.
type procGroup struct {
	cmd    *exec.Cmd
	sp     *sandbox.Process // the command, when a sandbox spawner started it (cmd is then not started)
	pid    int
	reaper *Reaper   // may be nil
	state  exitState // how it ended, once exited returned

	released bool // the spawner's process is released (Status failed)

	mu     sync.Mutex
	reaped bool // once the leader is reaped its pid may be reused: never signal it again
}

// startGroup starts cmd as the leader of a new process group; r (may be
// nil) learns that the leader is waited for by finish.
func startGroup(cmd *exec.Cmd, r *Reaper) (*procGroup, error) {
	setGroupAttr(cmd)
	_ = CloseInherited() // best effort: the command gets only its own descriptors
	if err := r.start(cmd); err != nil {
		return nil, err
	}
	return &procGroup{cmd: cmd, pid: cmd.Process.Pid, reaper: r}, nil
}

// terminate asks every process in the group to stop (SIGTERM, and SIGCONT
// so that stopped processes see it). It does nothing once the leader has
// been reaped.
func (g *procGroup) terminate() {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.sp != nil:
		_ = g.sp.Terminate() // the spawner signals it while it is not reaped
	case !g.reaped:
		_ = terminateGroup(g.pid)
	}
}

// kill kills every process in the group (SIGKILL). It does nothing once the
// leader has been reaped.
func (g *procGroup) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.sp != nil:
		_ = g.sp.Kill()
	case !g.reaped:
		_ = killGroup(g.pid)
	}
}

// finish waits for the leader to exit, kills whatever it left running in
// its group, and reaps it, returning [exec.Cmd.Wait]'s error: [exited],
// then [settle]. Call it after the output pipe has been read to EOF.
//
// Where the platform can wait without reaping (Linux: waitid with
// WNOWAIT), the leftovers are killed while the leader is still a zombie, so
// the group id cannot have been reused. Elsewhere the leader is reaped
// first and the leftovers are killed right after, which leaves a
// pid-reuse window of a few microseconds.
//
// With a [Reaper], the processes that detached from the group and were
// handed over to this process are killed and reaped too.
//
// A command the sandbox's spawner started is waited for, and its group
// emptied, by the spawner.
func (g *procGroup) finish() error {
	err := g.exited()
	g.settle()
	return err
}

// exited waits for the leader to exit and records how it ended (state),
// returning [exec.Cmd.Wait]'s error. Started here, the leader is also
// reaped and its group killed; started by the spawner, that is left to
// [settle], and the status comes as soon as the leader exits. Call it
// after the output pipe has been read to EOF.
func (g *procGroup) exited() error {
	if g.sp != nil {
		st, err := g.sp.Status()
		g.state, g.released = st, err != nil // on an error it is released: settle has nothing to wait for
		return err
	}
	err := g.waitGroup()
	g.reaper.reaped(g.pid)
	if g.cmd.ProcessState != nil {
		g.state = g.cmd.ProcessState
	}
	return err
}

// settle finishes what [exited] left: it waits until the spawner has
// killed the group and reaped the leader, and sweeps up the processes
// that left the group and were handed to this process.
func (g *procGroup) settle() {
	if g.sp != nil && !g.released {
		_ = g.sp.Settled()
	}
	g.reaper.sweep(g.pid)
}

// waitGroup is finish without the reaper.
func (g *procGroup) waitGroup() error {
	pid := g.pid
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
