package toolkit

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// createAnonymous creates an unnamed file in d (O_TMPFILE): until it is
// linked it has no name, so a process killed while writing it leaves
// nothing behind. ok is false where the file system does not support it.
func (d *dirHandle) createAnonymous() (f *os.File, ok bool) {
	fd, err := unix.Openat(int(d.f.Fd()), ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), "(anonymous)"), true
}

// link gives the anonymous file f the name name in d; it fails if name
// exists.
func (d *dirHandle) link(f *os.File, name string) error {
	// Linking through /proc needs no capability; AT_EMPTY_PATH needs
	// CAP_DAC_READ_SEARCH, for when /proc is not mounted.
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), int(d.f.Fd()), name, unix.AT_SYMLINK_FOLLOW)
	if err != nil && !os.IsExist(err) {
		err = unix.Linkat(int(f.Fd()), "", int(d.f.Fd()), name, unix.AT_EMPTY_PATH)
	}
	return err
}
