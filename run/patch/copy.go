package patch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// copyTree copies the directory src to dst, which must not exist:
// directories, regular files with their permission bits, and symlinks as
// links. Other files (sockets, devices, pipes) are skipped.
func copyTree(src, dst string) error {
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
		return copyEntry(path, target, buf)
	})
}

// overlay makes dst what src is: a copy of the file or link, or nothing
// when src does not exist.
func overlay(src, dst string) error {
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
	return copyEntry(src, dst, make([]byte, 64<<10))
}

// copyEntry copies one file or symlink; other kinds are skipped.
func copyEntry(src, dst string, buf []byte) error {
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
	return os.Chmod(dst, fi.Mode().Perm())
}
