//go:build !unix

package toolkit

import (
	"os"
	"path/filepath"
)

// dirHandle is a directory of a root. Outside Unix it is reached through
// the root by name, following symlinks that stay inside the root.
type dirHandle struct {
	r   *os.Root
	dir string
}

func (r *wsRoot) openDir(rel string) (*dirHandle, error) {
	fi, err := r.r.Stat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: rel, Err: os.ErrInvalid}
	}
	return &dirHandle{r: r.r, dir: rel}, nil
}

func (r *wsRoot) openBeneath(rel string, flags int, perm uint32) (*os.File, error) {
	return r.r.OpenFile(rel, flags, os.FileMode(perm))
}

func (d *dirHandle) open(name string, flags int, perm uint32) (*os.File, error) {
	return d.r.OpenFile(filepath.Join(d.dir, name), flags, os.FileMode(perm))
}

func (d *dirHandle) rename(from, to string) error {
	return d.r.Rename(filepath.Join(d.dir, from), filepath.Join(d.dir, to))
}

func (d *dirHandle) remove(name string) error { return d.r.Remove(filepath.Join(d.dir, name)) }

func (d *dirHandle) sync() error {
	f, err := d.r.Open(d.dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func (d *dirHandle) close() error { return nil }

// swapped is the identity outside Unix.
func swapped(err error) error { return err }
