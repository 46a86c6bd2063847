package toolkit

import (
	"os/exec"
	"sync"
	"time"
)

// Reaper catches the processes that the commands of the bash tool leave
// behind by detaching from their process group (setsid, as a daemonising
// python script or git's auto-gc does). Where the process is a child
// subreaper (Linux: PR_SET_CHILD_SUBREAPER, see [BecomeSubreaper]), every
// orphaned descendant becomes its child; the reaper kills and reaps every
// such child it did not start itself: at the end of each command and at
// the end of a run ([Reaper.Sweep]).
//
// The reaper must be the only one of its process: it takes for leftovers
// every child that is not a command the tools started. A nil *Reaper, or
// one in a process that is not a subreaper, does nothing. It is safe for
// concurrent use.
type Reaper struct {
	mu    sync.Mutex
	known map[int]bool // leaders of running commands, reaped by their own Wait
}

// NewReaper returns a reaper, or nil when the process is not a child
// subreaper (the orphans then go to init, which the reaper cannot reach).
func NewReaper() *Reaper {
	if !isSubreaper() {
		return nil
	}
	return &Reaper{known: map[int]bool{}}
}

// start starts cmd and records it as a command the tools wait for
// themselves; no sweep comes in between.
func (r *Reaper) start(cmd *exec.Cmd) error {
	if r == nil {
		return cmd.Start()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	r.known[cmd.Process.Pid] = true
	return nil
}

// reaped forgets pid after its Wait.
func (r *Reaper) reaped(pid int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	delete(r.known, pid)
	r.mu.Unlock()
}

// sweepLimit bounds how long one sweep waits for leftovers to die.
const sweepLimit = 2 * time.Second

// Sweep kills and reaps every adopted child. It returns when none is left,
// or after a bounded wait for ones that do not die.
func (r *Reaper) Sweep() { r.sweep(0) }

// sweep is Sweep that also waits until the process group pgid (when not 0)
// is empty: a member that dies hands its own children over to this
// process, and those are killed in turn.
func (r *Reaper) sweep(pgid int) {
	if r == nil {
		return
	}
	if pgid == 0 && noChildren() {
		return // nothing was adopted, and no command runs
	}
	// After a command only the orphans it left are looked for, where the
	// kernel puts them; at the end of a run, every thread's children.
	list := childPIDs
	if pgid != 0 {
		list = adoptedPIDs
	}
	deadline := time.Now().Add(sweepLimit)
	for {
		r.mu.Lock()
		var kids []int
		for _, pid := range list() {
			if !r.known[pid] {
				kids = append(kids, pid)
			}
		}
		for _, pid := range kids {
			killAndReap(pid)
		}
		r.mu.Unlock()
		if (len(kids) == 0 && (pgid == 0 || groupGone(pgid))) || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
