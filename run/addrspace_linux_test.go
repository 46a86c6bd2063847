package run

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// kcmpVM is KCMP_VM of linux/kcmp.h: whether two processes share one
// address space.
const kcmpVM = 1

// sameAddressSpace reports whether processes a and b share one address
// space (a child started with CLONE_VM that has not exec'd yet shares its
// parent's: Go's ForkExec starts every child so), by kcmp(2); ok is false
// when the kernel would not compare them (no kcmp, or no right to look
// at both).
func sameAddressSpace(a, b int) (same, ok bool) {
	r, _, errno := unix.Syscall6(unix.SYS_KCMP, uintptr(a), uintptr(b), kcmpVM, 0, 0, 0)
	if errno != 0 {
		return false, false
	}
	return r == 0, true
}

// A process shares its address space with itself and not with its parent.
func TestSameAddressSpace(t *testing.T) {
	if _, ok := sameAddressSpace(os.Getpid(), os.Getpid()); !ok {
		t.Skip("kcmp is not available here")
	}
	if same, _ := sameAddressSpace(os.Getpid(), os.Getpid()); !same {
		t.Error("a process does not share its own address space")
	}
	if same, ok := sameAddressSpace(os.Getpid(), os.Getppid()); same || !ok {
		t.Errorf("the test shares its parent's address space (%v, ok %v)", same, ok)
	}
}
