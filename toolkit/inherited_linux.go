package toolkit

import "golang.org/x/sys/unix"

// fdDir lists the process's open descriptors.
const fdDir = "/proc/self/fd"

// closeRangeCloexec marks descriptors 3 and up close-on-exec in one call
// (Linux >= 5.11).
func closeRangeCloexec() error {
	return unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
}
