package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// cldExited is the si_code of a child that exited (CLD_EXITED); the
// others (killed, dumped) carry the signal in si_status.
const cldExited = 1

// childStatus reads si_code and si_status of a SIGCHLD siginfo, which
// unix.Siginfo leaves in its padding: the union of fields follows three
// ints, aligned as a pointer (offset 16 on 64-bit Linux, 12 on 32-bit),
// and holds si_pid, si_uid and then si_status.
func childStatus(info *unix.Siginfo) (code, status int32) {
	const union = (3*4 + unsafe.Alignof(uintptr(0)) - 1) &^ (unsafe.Alignof(uintptr(0)) - 1)
	raw := (*[union + 12]byte)(unsafe.Pointer(info))
	return info.Code, *(*int32)(unsafe.Pointer(&raw[union+8]))
}
