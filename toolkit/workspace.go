package toolkit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxSymlinkHops bounds how many symlinks one resolution follows, like the
// kernel's ELOOP limit.
const maxSymlinkHops = 40

// Workspace is the set of directories the file tools may touch: the
// workspace root, opened with [os.Root], plus any extra roots the runner adds
// ([Workspace.AddRoot]). Every file access of the tools goes through it.
//
// A Workspace is safe for concurrent use. It owns the directory handles it
// opened; [Workspace.Close] releases them.
type Workspace struct {
	mu    sync.RWMutex
	roots []*wsRoot // roots[0] is the workspace itself
}

// wsRoot is one directory the tools may reach.
type wsRoot struct {
	dir      string // absolute, cleaned, symlinks evaluated
	alias    string // absolute and cleaned as given; equals dir when no link was involved
	r        *os.Root
	writable bool
	primary  bool // the workspace root: paths inside it are reported relative
}

// location is a resolved path: the root it lies in and its path there.
type location struct {
	ref  PathRef
	root *wsRoot
	rel  string      // resolved, relative to root.dir in OS form; "." for the root
	info fs.FileInfo // Lstat of the resolved path; nil when it does not exist
	// writable is root.writable when the path was resolved (root.writable
	// itself may change under the workspace's lock).
	writable bool
}

// exists reports whether the resolved path exists.
func (l location) exists() bool { return l.info != nil }

// key identifies the resolved file across roots, for the read tracker.
func (l location) key() string { return filepath.Join(l.root.dir, l.rel) }

// OpenWorkspace opens the directory root as the workspace. The caller must
// Close the workspace when done.
func OpenWorkspace(root string) (*Workspace, error) {
	wr, err := openRoot(root, true)
	if err != nil {
		return nil, fmt.Errorf("toolkit: open workspace: %w", err)
	}
	wr.primary = true
	return &Workspace{roots: []*wsRoot{wr}}, nil
}

func openRoot(dir string, writable bool) (*wsRoot, error) {
	if dir == "" {
		return nil, errors.New("empty directory name")
	}
	if err := checkPathChars(dir); err != nil {
		return nil, err
	}
	alias, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(alias)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	return &wsRoot{dir: real, alias: alias, r: r, writable: writable}, nil
}

// Root returns the workspace root directory: absolute, with symlinks
// evaluated.
func (w *Workspace) Root() string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.roots[0].dir
}

// AddRoot makes the directory dir, outside the workspace, reachable by the
// file tools: read-only, or also writable when writable is set. Paths in it
// are reported as absolute paths. Adding a directory twice keeps the most
// permissive mode.
func (w *Workspace) AddRoot(dir string, writable bool) error {
	wr, err := openRoot(dir, writable)
	if err != nil {
		return fmt.Errorf("toolkit: add root: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, have := range w.roots {
		if have.dir == wr.dir {
			wr.r.Close()
			have.writable = have.writable || writable
			return nil
		}
	}
	w.roots = append(w.roots, wr)
	return nil
}

// Close releases the directory handles of every root.
func (w *Workspace) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for _, r := range w.roots {
		errs = append(errs, r.r.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("toolkit: close workspace: %w", err)
	}
	return nil
}

// Resolve resolves path exactly as the file tools do and returns the
// requested and resolved forms the tools report in their effects.
//
// path is relative to the workspace root or absolute inside one of the
// roots. Symlinks are followed as long as they stay inside the roots; a
// path that does not exist resolves to itself (below its deepest existing,
// resolved parent). Resolve refuses, with an error meant for the model,
// a path that leaves every root (through `..` or a symlink), contains a NUL
// or another control character, or names something other than a regular
// file or a directory (a FIFO, a device, a socket).
func (w *Workspace) Resolve(path string) (PathRef, error) {
	loc, err := w.resolve(path)
	if err != nil {
		return PathRef{}, err
	}
	return loc.ref, nil
}

// checkPathChars refuses NUL and control characters and invalid UTF-8.
func checkPathChars(p string) error {
	for i, r := range p {
		switch {
		case r == 0:
			return fmt.Errorf("path %q contains a NUL byte", p)
		case r == utf8.RuneError && !strings.HasPrefix(p[i:], "\uFFFD"):
			return fmt.Errorf("path %q is not valid UTF-8", p)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return fmt.Errorf("path %q contains the control character %U", p, r)
		}
	}
	return nil
}

// resolve is Resolve with the root and file information the tools need.
func (w *Workspace) resolve(path string) (location, error) {
	if path == "" {
		return location{}, errors.New("path is empty")
	}
	if err := checkPathChars(path); err != nil {
		return location{}, err
	}
	w.mu.RLock()
	defer w.mu.RUnlock()

	abs := filepath.Clean(path)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.roots[0].dir, abs)
	}
	root, rel, ok := w.findRoot(abs)
	if !ok {
		if filepath.IsAbs(path) {
			return location{}, fmt.Errorf("path %s is outside the workspace %s", path, w.roots[0].dir)
		}
		return location{}, fmt.Errorf("path %s leaves the workspace %s", path, w.roots[0].dir)
	}
	loc := location{ref: PathRef{Requested: root.display(rel)}}

	hops := 0
	done := "."
	rest := splitRel(rel)
	for len(rest) > 0 {
		cand := filepath.Join(done, rest[0])
		fi, err := root.r.Lstat(cand)
		if errors.Is(err, fs.ErrNotExist) {
			done = filepath.Join(append([]string{cand}, rest[1:]...)...)
			rest = nil
			break
		}
		if err != nil {
			if isNotDir(err) {
				return location{}, fmt.Errorf("path %s: %s is not a directory", path, root.display(done))
			}
			return location{}, fmt.Errorf("path %s: %w", path, stripPathError(err))
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			hops++
			if hops > maxSymlinkHops {
				return location{}, fmt.Errorf("path %s: too many levels of symbolic links", path)
			}
			if root, rest, err = w.followLink(path, root, done, cand, rest[1:]); err != nil {
				return location{}, err
			}
			done = "."
			continue
		}
		if len(rest) > 1 && !fi.IsDir() {
			return location{}, fmt.Errorf("path %s: %s is not a directory", path, root.display(cand))
		}
		done, rest = cand, rest[1:]
		if len(rest) == 0 {
			loc.info = fi
		}
	}
	if done == "." {
		fi, err := root.r.Lstat(".")
		if err != nil {
			return location{}, fmt.Errorf("path %s: %w", path, stripPathError(err))
		}
		loc.info = fi
	}
	if loc.info != nil && !loc.info.Mode().IsRegular() && !loc.info.IsDir() {
		return location{}, fmt.Errorf("path %s is a %s, not a regular file or directory", path, fileKind(loc.info.Mode()))
	}
	loc.root, loc.rel, loc.writable = root, done, root.writable
	loc.ref.Resolved = root.display(done)
	return loc, nil
}

// followLink resolves the symlink cand (in root, under the resolved
// directory done) that path's walk met with the parts rest still to walk,
// and returns the root and the parts to walk from that root's top.
func (w *Workspace) followLink(path string, root *wsRoot, done, cand string, rest []string) (*wsRoot, []string, error) {
	target, err := root.r.Readlink(cand)
	if err != nil {
		return nil, nil, fmt.Errorf("path %s: read link %s: %w", path, root.display(cand), stripPathError(err))
	}
	next := target
	if !filepath.IsAbs(next) {
		next = filepath.Join(root.dir, done, target)
	}
	next = filepath.Join(append([]string{next}, rest...)...)
	nroot, nrel, ok := w.findRoot(next)
	if !ok {
		return nil, nil, fmt.Errorf("path %s leads outside the workspace through the symlink %s -> %s",
			path, root.display(cand), target)
	}
	return nroot, splitRel(nrel), nil
}

// findRoot returns the root containing the absolute, cleaned path abs (the
// deepest, when roots nest) and the path relative to it.
func (w *Workspace) findRoot(abs string) (*wsRoot, string, bool) {
	var best *wsRoot
	var bestRel string
	bestLen := -1
	for _, r := range w.roots {
		for _, base := range []string{r.dir, r.alias} {
			rel, ok := within(base, abs)
			if ok && len(base) > bestLen {
				best, bestRel, bestLen = r, rel, len(base)
			}
		}
	}
	return best, bestRel, best != nil
}

// within reports whether abs lies in dir and returns it relative to dir.
func within(dir, abs string) (string, bool) {
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// splitRel splits a cleaned relative path into its elements; "." has none.
func splitRel(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, string(filepath.Separator))
}

// display formats a path relative to r as the tools report it.
func (r *wsRoot) display(rel string) string {
	if r.primary {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(filepath.Join(r.dir, rel))
}

// fileKind names a non-regular file type for error messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// stripPathError drops the os.Root-relative path from a *fs.PathError; the
// callers name the path the model used instead.
func stripPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// effectsFor resolves path and describes a call of the given kind on it.
func (w *Workspace) effectsFor(kind EffectKind, path string) (Effects, error) {
	ref, err := w.Resolve(path)
	if err != nil {
		return Effects{}, err
	}
	return Effects{Kind: kind, Paths: []PathRef{ref}}, nil
}
