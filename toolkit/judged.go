package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// JudgedRunner is a [Tool] that can act on exactly what the policy
// judged: RunJudged performs the call on the resolved paths of eff (what
// Effects returned for the same args), without resolving the requested
// path a second time. A symlink swapped in between the judgement and the
// run then cannot redirect the call to a file the policy never saw; the
// tool opens the judged path following no symlink and fails instead.
type JudgedRunner interface {
	Tool
	RunJudged(ctx context.Context, args json.RawMessage, eff Effects) (Result, error)
}

// SafeRunJudged is [SafeRun] for a call whose effects eff were judged: a
// [JudgedRunner] acts on them, any other tool runs as usual.
func SafeRunJudged(ctx context.Context, tool Tool, args json.RawMessage, eff Effects) (res Result, err error) {
	jr, ok := tool.(JudgedRunner)
	if !ok {
		return SafeRun(ctx, tool, args)
	}
	defer func() {
		if p := recover(); p != nil {
			res = Result{Content: fmt.Sprintf("the %s tool failed internally (panic: %v); this is a bug in the tool, not in your call", safeName(tool), p), IsError: true}
			err = nil
		}
	}()
	return jr.RunJudged(ctx, args, eff)
}

// locate returns the location a file tool acts on: the judged one of eff
// when given, else path resolved now.
func (w *Workspace) locate(path string, eff *Effects) (location, error) {
	if eff == nil {
		return w.resolve(path)
	}
	if len(eff.Paths) != 1 {
		return location{}, fmt.Errorf("the judged call names %d paths, not 1", len(eff.Paths))
	}
	return w.judged(eff.Paths[0])
}

// judged returns the location of ref.Resolved as it was resolved, without
// following symlinks again; its file information comes from opening it
// with no symlink followed, so a path changed since has none or fails.
func (w *Workspace) judged(ref PathRef) (location, error) {
	w.mu.RLock()
	abs := filepath.FromSlash(ref.Resolved)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.roots[0].dir, abs)
	}
	root, rel, ok := w.findRoot(filepath.Clean(abs))
	writable := ok && root.writable
	w.mu.RUnlock()
	if !ok {
		return location{}, fmt.Errorf("path %s is outside the workspace", ref.Resolved)
	}
	loc := location{ref: ref, root: root, rel: rel, writable: writable}
	f, err := root.openBeneath(rel, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return loc, nil
	}
	if err != nil {
		return location{}, fmt.Errorf("path %s: %w", ref.Requested, stripPathError(err))
	}
	defer f.Close()
	if loc.info, err = f.Stat(); err != nil {
		return location{}, fmt.Errorf("path %s: %w", ref.Requested, err)
	}
	if !loc.info.Mode().IsRegular() && !loc.info.IsDir() {
		return location{}, fmt.Errorf("path %s is a %s, not a regular file or directory", ref.Requested, fileKind(loc.info.Mode()))
	}
	return loc, nil
}

// ReadRange reads up to n bytes at offset off of the file ref names, as it
// was judged: opened beneath its root following no symlink (one swapped in
// since the judgement fails the read), and only when it is a regular file,
// so a FIFO or a device is refused rather than waited on. Fewer bytes come
// back at the end of the file; an offset at or past the end is an error.
func (w *Workspace) ReadRange(ref PathRef, off, n int64) ([]byte, error) {
	loc, err := w.judged(ref)
	if err != nil {
		return nil, err
	}
	f, _, err := loc.openRegular()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := f.ReadAt(buf, off)
	if k == 0 && err != nil {
		return nil, fmt.Errorf("read %s at %d: %w", ref.Requested, off, stripPathError(err))
	}
	return buf[:k], nil
}
