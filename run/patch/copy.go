package patch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// linkKeeper keeps the hard-link guard of the copied files: a file of the
// workspace with more than one link (another name of it may be a file the
// policy denies reading, such as .env) gets a second name in dir, outside
// the copy's work tree, so that its copy has more than one link too and
// the file tools and grep treat it as they would the original.
type linkKeeper struct {
	dir string // created on first use; removed with the copy
	n   int
}

// keep gives dst a second name when src's file has more than one link.
func (k *linkKeeper) keep(src fs.FileInfo, dst string) error {
	if k == nil || hardLinks(src) <= 1 {
		return nil
	}
	if k.n == 0 {
		if err := os.MkdirAll(k.dir, 0o700); err != nil {
			return fmt.Errorf("patch: %w", err)
		}
	}
	k.n++
	if err := os.Link(dst, filepath.Join(k.dir, strconv.Itoa(k.n))); err != nil {
		return fmt.Errorf("patch: keep the hard-link guard of %s: %w", dst, err)
	}
	return nil
}

// copyTree copies the directory src to dst, which must not exist:
// directories, regular files with their permission bits, and symlinks as
// links. Other files (sockets, devices, pipes) are skipped. A file with
// more than one link keeps more than one (see [linkKeeper]).
func copyTree(src, dst string, k *linkKeeper) error {
	buf := make([]byte, 256<<10)
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("patch: copy: %w", err)
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			fi, err := d.Info()
			if err != nil {
				return fmt.Errorf("patch: copy: %w", err)
			}
			// Owner rwx at least, so that the copy can be filled and
			// removed; the patch does not record directory modes.
			return os.Mkdir(target, fi.Mode().Perm()|0o700)
		}
		return copyEntry(path, target, buf, k)
	})
}

// overlay makes dst what src is: a copy of the file or link, or nothing
// when src does not exist. A file with more than one link keeps more than
// one (see [linkKeeper]).
func overlay(src, dst string, k *linkKeeper) error {
	if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
		if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("patch: %w", err)
		}
		return nil
	}
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		if err := os.RemoveAll(dst); err != nil {
			return fmt.Errorf("patch: %w", err)
		}
	} else if err == nil {
		if err := os.Remove(dst); err != nil {
			return fmt.Errorf("patch: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	return copyEntry(src, dst, make([]byte, 64<<10), k)
}

// copyEntry copies one file or symlink; other kinds are skipped.
func copyEntry(src, dst string, buf []byte, k *linkKeeper) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return fmt.Errorf("patch: copy: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		link, err := os.Readlink(src)
		if err != nil {
			return fmt.Errorf("patch: copy: %w", err)
		}
		return os.Symlink(link, dst)
	case !fi.Mode().IsRegular():
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("patch: copy: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return fmt.Errorf("patch: copy: %w", err)
	}
	if _, err := io.CopyBuffer(out, in, buf); err != nil {
		out.Close()
		return fmt.Errorf("patch: copy %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("patch: copy: %w", err)
	}
	// O_CREATE applies the umask; the mode must be the source's exactly.
	if err := os.Chmod(dst, fi.Mode().Perm()); err != nil {
		return fmt.Errorf("patch: copy: %w", err)
	}
	return k.keep(fi, dst)
}
