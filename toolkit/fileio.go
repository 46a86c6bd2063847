package toolkit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// openRegular opens the resolved file for reading, following no symlink
// (the resolved path has none; one swapped in since fails the open), and
// checks, on the open file, that it is a regular file.
func (l location) openRegular() (*os.File, fs.FileInfo, error) {
	f, err := l.root.openBeneath(l.rel, readFlags, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", l.ref.Requested, stripPathError(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", l.ref.Requested, stripPathError(err))
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, nil, fmt.Errorf("%s is a directory", l.ref.Requested)
		}
		return nil, nil, fmt.Errorf("%s is a %s, not a regular file", l.ref.Requested, fileKind(fi.Mode()))
	}
	return f, fi, nil
}

// readAll reads the whole resolved regular file.
func (l location) readAll() ([]byte, fs.FileInfo, error) {
	f, fi, err := l.openRegular()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, fi, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", l.ref.Requested, stripPathError(err))
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// atomicWriter writes files so that a reader, or a crash, sees either the
// old content or the new one, never a mix.
type atomicWriter struct {
	// sync flushes the temporary file; a field so tests can make it fail.
	sync func(*os.File) error
}

// write replaces the resolved file with data. The parent directory
// (created if missing) is opened without following symlinks, so the file
// lands exactly where the path was resolved. The data goes to an unnamed
// file (O_TMPFILE, Linux) or else to a new ".NAME.rubichan-XXXX.tmp"
// created with O_EXCL; it is written, chmod-ed to perm and fsync-ed before
// it gets a name, and renamed over the target. On failure the temporary
// file is removed and the target is untouched; a process killed while
// writing leaves no file behind where O_TMPFILE is supported.
func (aw atomicWriter) write(l location, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(l.rel)
	dir = filepath.Clean(dir)
	if dir != "." {
		if err := l.root.r.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create parent directories of %s: %w", l.ref.Requested, stripPathError(err))
		}
	}
	d, err := l.root.openDir(dir)
	if err != nil {
		return fmt.Errorf("open the directory of %s: %w", l.ref.Requested, stripPathError(err))
	}
	defer d.close()
	f, anonymous := d.createAnonymous()
	tmp := ""
	if !anonymous {
		if f, tmp, err = createTemp(d, base); err != nil {
			return fmt.Errorf("create temporary file for %s: %w", l.ref.Requested, err)
		}
	}
	fail := func(step string, err error) error {
		f.Close()
		if tmp != "" {
			d.remove(tmp)
		}
		return fmt.Errorf("%s %s: %w", step, l.ref.Requested, stripPathError(err))
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail("chmod", err)
	}
	syncf := aw.sync
	if syncf == nil {
		syncf = (*os.File).Sync
	}
	if err := syncf(f); err != nil {
		return fail("sync", err)
	}
	if anonymous {
		if tmp, err = linkTemp(d, f, base, !l.exists()); err != nil {
			return fail("name", err)
		}
	}
	if err := f.Close(); err != nil {
		if tmp != "" {
			d.remove(tmp)
		}
		return fmt.Errorf("close %s: %w", l.ref.Requested, stripPathError(err))
	}
	if tmp != "" {
		if err := d.rename(tmp, base); err != nil {
			d.remove(tmp)
			return fmt.Errorf("rename into %s: %w", l.ref.Requested, stripPathError(err))
		}
	}
	// Make the rename itself durable; a failure here leaves a complete file.
	_ = d.sync()
	return nil
}

// tempName returns a fresh ".BASE.rubichan-XXXXXXXXXXXX.tmp".
func tempName(base string) string {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	return "." + base + ".rubichan-" + hex.EncodeToString(rnd[:]) + ".tmp"
}

// createTemp creates a new temporary file for base in d with O_EXCL.
func createTemp(d *dirHandle, base string) (*os.File, string, error) {
	for range 10 {
		tmp := tempName(base)
		f, err := d.open(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, tmp, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", stripPathError(err)
		}
	}
	return nil, "", errors.New("too many name collisions")
}

// linkTemp names the complete anonymous file f: as base itself when the
// target did not exist (no temporary name at all), else under a temporary
// name that the caller renames over the target at once. It returns the
// temporary name, or "" when f already has its final name.
func linkTemp(d *dirHandle, f *os.File, base string, create bool) (string, error) {
	if create {
		err := d.link(f, base)
		if err == nil {
			return "", nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	for range 10 {
		tmp := tempName(base)
		err := d.link(f, tmp)
		if err == nil {
			return tmp, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", errors.New("too many name collisions")
}
