package toolkit

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
)

// walkEntry is one regular file met by walk.
type walkEntry struct {
	dir  *os.Root // the file's directory; valid only during the visit call
	name string   // the file's name in dir
	path string   // the file as tools report it (see [PathRef])
	rel  string   // slash path relative to the walk's start
}

// errStopWalk ends a walk early without an error.
var errStopWalk = errors.New("stop walk")

// walk visits, in lexical order, the regular files under the directory
// start. It does not descend into .git directories and skips paths ignored
// by git's ignore files (see [repoIgnores] and [ancestorIgnores], and the
// .gitignore files met on the way), symlinks (so a walk never loops) and
// special files. Files the filter rejects are skipped and counted.
// Unreadable directories are skipped. Each directory is opened as its own
// [os.Root] beneath start's root, so a file is opened with one confined
// openat. visit may return errStopWalk to end the walk.
func walk(ctx context.Context, start location, filter func(string) bool, visit func(walkEntry) error) (skipped int, err error) {
	base := filepath.ToSlash(start.rel)
	if base == "." {
		base = ""
	}
	stack := append(repoIgnores(start.root.dir), ancestorIgnores(start.root.r, base)...)
	dir, err := start.root.r.OpenRoot(start.rel)
	if err != nil {
		return 0, err
	}
	defer dir.Close()
	w := walker{ctx: ctx, root: start.root, filter: filter, visit: visit}
	err = w.dir(dir, base, "", stack)
	if errors.Is(err, errStopWalk) {
		err = nil
	}
	return w.skipped, err
}

type walker struct {
	ctx     context.Context
	root    *wsRoot
	filter  func(string) bool
	visit   func(walkEntry) error
	skipped int
}

// dir walks the directory d, at rootRel (slash, relative to the root) and
// startRel (relative to the walk's start).
func (w *walker) dir(d *os.Root, rootRel, startRel string, stack ignoreStack) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if data, err := readIgnoreFile(d, ".gitignore"); err == nil {
		stack = append(stack, parseGitignore(rootRel, data))
	}
	f, err := d.Open(".")
	if err != nil {
		return nil
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		name := e.Name()
		childRoot := path.Join(rootRel, name)
		childStart := path.Join(startRel, name)
		switch typ := e.Type(); {
		case typ.IsDir():
			if name == ".git" || stack.ignored(childRoot, true) {
				continue
			}
			sub, err := d.OpenRoot(name)
			if err != nil {
				continue
			}
			err = w.dir(sub, childRoot, childStart, stack)
			sub.Close()
			if err != nil {
				return err
			}
		case typ.IsRegular():
			if stack.ignored(childRoot, false) {
				continue
			}
			p := w.root.display(filepath.FromSlash(childRoot))
			if w.filter != nil && !w.filter(p) {
				w.skipped++
				continue
			}
			if err := w.visit(walkEntry{dir: d, name: name, path: p, rel: childStart}); err != nil {
				return err
			}
		}
	}
	return nil
}
