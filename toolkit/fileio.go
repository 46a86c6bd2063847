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

// openRegular opens the resolved file for reading and checks, on the open
// file, that it is a regular file.
func (l location) openRegular() (*os.File, fs.FileInfo, error) {
	f, err := l.root.r.OpenFile(l.rel, readFlags, 0)
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

// write replaces the resolved file with data: a new temporary file created
// with O_EXCL next to the target, written, chmod-ed to perm, fsync-ed and
// renamed over the target. Parent directories are created. On failure the
// temporary file is removed and the target is untouched.
func (aw atomicWriter) write(l location, data []byte, perm fs.FileMode) error {
	r := l.root.r
	dir, base := filepath.Split(l.rel)
	dir = filepath.Clean(dir)
	if dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create parent directories of %s: %w", l.ref.Requested, stripPathError(err))
		}
	}
	var tmp string
	var f *os.File
	for range 10 {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		tmp = filepath.Join(dir, "."+base+".rubichan-"+hex.EncodeToString(rnd[:])+".tmp")
		var err error
		f, err = r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create temporary file for %s: %w", l.ref.Requested, stripPathError(err))
		}
		f = nil
	}
	if f == nil {
		return fmt.Errorf("create temporary file for %s: too many name collisions", l.ref.Requested)
	}
	fail := func(step string, err error) error {
		f.Close()
		r.Remove(tmp)
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
	if err := f.Close(); err != nil {
		r.Remove(tmp)
		return fmt.Errorf("close %s: %w", l.ref.Requested, stripPathError(err))
	}
	if err := r.Rename(tmp, l.rel); err != nil {
		r.Remove(tmp)
		return fmt.Errorf("rename into %s: %w", l.ref.Requested, stripPathError(err))
	}
	// Make the rename itself durable; a failure here leaves a complete file.
	if d, err := r.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
