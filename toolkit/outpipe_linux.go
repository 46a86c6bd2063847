package toolkit

import (
	"os"

	"golang.org/x/sys/unix"
)

// outputPipe returns the pipe a command's output goes through: r for the
// tool, in the runtime's poller, and w for the command, blocking — a
// descriptor's status flags are shared with the command, which must wait
// on a full pipe rather than fail with EAGAIN. os.Pipe made both ends
// the poller's, and handing w to the command made it blocking again:
// four system calls more a command, for an end this process never reads
// or writes.
func outputPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := unix.SetNonblock(p[0], true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	// NewFile puts a non-blocking descriptor in the poller, and leaves a
	// blocking one out of it.
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
