package toolkit

import (
	"errors"
	"syscall"
	"unsafe"
)

// waitExited blocks until the child pid has exited, without reaping it: the
// zombie keeps its pid, and with it the process group id, reserved.
//
// It calls waitid(P_PID, pid, &info, WEXITED|WNOWAIT) through the syscall
// package, which does not wrap waitid; golang.org/x/sys/unix does, but is
// not worth a go.mod change for one call.
func waitExited(pid int) error {
	const pPID = 1     // P_PID from <sys/wait.h>
	var info [128]byte // siginfo_t, which is 128 bytes on every Linux architecture
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch {
		case errno == 0:
			return nil
		case !errors.Is(errno, syscall.EINTR):
			return errno
		}
	}
}
