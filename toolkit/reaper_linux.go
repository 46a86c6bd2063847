package toolkit

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes the calling process a child subreaper: its
// descendants that lose their parent (a double fork, a daemon calling
// setsid) become its children instead of init's, so a [Reaper] can end
// them. It changes the whole process; only main should call it.
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

func isSubreaper() bool {
	var v int32
	err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0)
	return err == nil && v != 0
}

// noChildren reports whether this process has no child at all, running
// or exited, without reaping one (WNOWAIT): a sweep then has nothing to
// look for, and skips listing every thread's children in /proc.
func noChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return errors.Is(err, unix.ECHILD)
}

// childPIDs lists the children of this process, from each thread's
// /proc/self/task/TID/children.
func childPIDs() []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	var pids []int
	for _, f := range files {
		pids = appendChildren(pids, f)
	}
	return pids
}

// adoptedPIDs lists the children of this process's first thread, which
// hold every orphan it adopted: Linux hands an orphan to the first live
// thread of its subreaper (find_new_reaper), and a Go program's first
// thread lives as long as the program. It reads one file where
// [childPIDs] lists the threads and reads one file each — a third of a
// millisecond for a run's ten threads, after every command. Children a
// thread started itself may be missing; the reaper's sweeps need only
// the orphans.
func adoptedPIDs() []int {
	return appendChildren(nil, "/proc/self/task/"+strconv.Itoa(os.Getpid())+"/children")
}

// appendChildren appends the pids listed in a /proc children file.
func appendChildren(pids []int, file string) []int {
	data, err := os.ReadFile(file)
	if err != nil {
		return pids
	}
	for _, field := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(field); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killAndReap kills the child pid and reaps it if it has died.
func killAndReap(pid int) {
	_ = syscall.Kill(pid, syscall.SIGKILL)
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}

// groupGone reports whether no process is left in the group pgid.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
