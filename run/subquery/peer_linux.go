package subquery

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

// peerPID returns the process id of the other end of c (SO_PEERCRED).
func peerPID(c *net.UnixConn) (int, bool) {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0, false
	}
	var cred *syscall.Ucred
	var cerr error
	err = rc.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	if err != nil || cerr != nil || cred == nil {
		return 0, false
	}
	return int(cred.Pid), true
}

// maxDepth bounds the walk up the process tree.
const maxDepth = 1024

// ancestors returns pid and its ancestors, nearest first, up to init.
func ancestors(pid int) ([]int, error) {
	chain := []int{pid}
	for p := pid; p > 1 && len(chain) < maxDepth; {
		pp, err := parentPID(p)
		if err != nil {
			return nil, err
		}
		chain = append(chain, pp)
		p = pp
	}
	return chain, nil
}

// parentPID reads the parent of pid from /proc/PID/stat, whose second
// field (the command name, in parentheses) may hold spaces and
// parentheses: the fields after the last ')' are "state ppid …".
func parentPID(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	return strconv.Atoi(string(f[1]))
}
