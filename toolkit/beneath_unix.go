//go:build unix

package toolkit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory of a root, reached without following any
// symlink: names created, renamed or removed through it land in exactly
// the directory that was resolved (and judged), whatever is swapped in
// on the way meanwhile.
type dirHandle struct {
	f *os.File
}

// openDir opens the directory rel (resolved, relative to r) one element at
// a time with O_NOFOLLOW: a symlink swapped into the path since it was
// resolved makes the open fail rather than lead elsewhere.
func (r *wsRoot) openDir(rel string) (*dirHandle, error) {
	cur, err := r.r.Open(".")
	if err != nil {
		return nil, err
	}
	for _, el := range splitRel(rel) {
		fd, err := unix.Openat(int(cur.Fd()), el, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		cur.Close()
		if err != nil {
			return nil, swapped(&fs.PathError{Op: "open", Path: rel, Err: err})
		}
		cur = os.NewFile(uintptr(fd), el)
	}
	return &dirHandle{f: cur}, nil
}

// openBeneath opens rel with flags, following no symlink on the way or at
// the end.
func (r *wsRoot) openBeneath(rel string, flags int, perm uint32) (*os.File, error) {
	d, err := r.openDir(filepath.Dir(rel))
	if err != nil {
		return nil, err
	}
	defer d.close()
	return d.open(filepath.Base(rel), flags, perm)
}

// open opens name in d without following a symlink.
func (d *dirHandle) open(name string, flags int, perm uint32) (*os.File, error) {
	fd, err := unix.Openat(int(d.f.Fd()), name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, swapped(&fs.PathError{Op: "open", Path: name, Err: err})
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (d *dirHandle) rename(from, to string) error {
	fd := int(d.f.Fd())
	return unix.Renameat(fd, from, fd, to)
}

func (d *dirHandle) remove(name string) error { return unix.Unlinkat(int(d.f.Fd()), name, 0) }

func (d *dirHandle) sync() error { return d.f.Sync() }

func (d *dirHandle) close() error { return d.f.Close() }

// errSwapped explains an open that met a symlink where the resolved path
// had none.
var errSwapped = errors.New("the path changed while the call ran (a symbolic link appeared on the way); try again")

// swapped turns ELOOP (O_NOFOLLOW met a symlink) into errSwapped.
func swapped(err error) error {
	if errors.Is(err, unix.ELOOP) {
		return errSwapped
	}
	return err
}
