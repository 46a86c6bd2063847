//go:build unix

package toolkit

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCloseInherited checks that a descriptor opened without
// close-on-exec, as one rubichan inherited is, is close-on-exec after
// CloseInherited, by either way of marking it.
func TestCloseInherited(t *testing.T) {
	for name, mark := range map[string]func() error{"CloseInherited": CloseInherited, "each": cloexecEach} {
		t.Run(name, func(t *testing.T) {
			fd, err := unix.Open(filepath.Join(t.TempDir(), "f"), unix.O_CREAT|unix.O_RDWR, 0o600) // no O_CLOEXEC
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
				t.Fatalf("fd %d is close-on-exec before", fd)
			}
			if err := mark(); err != nil {
				t.Fatal(err)
			}
			if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC == 0 {
				t.Errorf("fd %d is not close-on-exec after %s", fd, name)
			}
			for _, std := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
				if flags, _ := unix.FcntlInt(std.Fd(), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
					t.Errorf("fd %d became close-on-exec", std.Fd())
				}
			}
		})
	}
}
