package patch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultMaxSize bounds the plain copy of a workspace outside git: 1 GB.
const DefaultMaxSize = 1 << 30

// Options configure [Prepare].
type Options struct {
	// MaxSize bounds the plain copy outside git, in bytes of regular
	// files; 0 means [DefaultMaxSize], a negative value no bound.
	MaxSize int64
	// Env is the environment git runs with ("NAME=value"), handed in by
	// the caller; variables that redirect git elsewhere are removed.
	Env []string
	// DropEnv names variables git must not get (the provider's key
	// variables), besides those whose names look secret.
	DropEnv []string
	// TempDir is where the private copy is made; "" means os.TempDir().
	TempDir string
}

// SizeError says a workspace outside git is larger than the bound of its
// plain copy.
type SizeError struct {
	Dir       string
	Size, Max int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("patch: %s is not a git repository and holds more than %d bytes (--patch-max-size %d); "+
		"run in a git repository or raise the bound", e.Dir, e.Size, e.Max)
}

// Copy is a private copy of a workspace and the base it started from.
type Copy struct {
	// Root is the workspace inside the copy: the copy of the directory
	// given to [Prepare].
	Root string
	// BaseCommit is the checkout's HEAD commit; "" outside git or on a
	// branch without commits.
	BaseCommit string
	// Dirty says the checkout had uncommitted changes or untracked files
	// that are part of the base.
	Dirty bool
	// Git says the workspace was in a git repository.
	Git bool

	tmp      string // the private directory; removed by Close
	g        git    // rubichan's git in the copy: the private git directory and the work tree
	baseTree string // tree object of the base
}

// GitDir returns the copy's private git directory, where rubichan records
// the base and computes the patch: beside the copy's work tree, never
// inside it, so that a sandbox whose writable roots are the work tree (and
// not the private directory holding both) keeps the code it confines from
// changing its configuration, hooks or objects. The agent's own
// repository in the work tree (its .git) is another one, which rubichan
// does not run git in after [Prepare].
func (c *Copy) GitDir() string { return c.g.gitDir }

// Prepare copies the workspace dir into a private temporary directory.
// Nothing is written inside dir or its repository. The caller must call
// [Copy.Close].
func Prepare(ctx context.Context, dir string, opt Options) (*Copy, error) {
	dir, err := filepath.Abs(dir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("patch: workspace: %w", err)
	}
	env := Environment(opt.Env, opt.DropEnv, dir)
	src, err := newGit(ctx, env, dir, "", "")
	if err != nil {
		return nil, err
	}
	top, common, isGit := findRepo(ctx, src)
	if !isGit && opt.MaxSize >= 0 {
		max := opt.MaxSize
		if max == 0 {
			max = DefaultMaxSize
		}
		if size, err := treeSize(dir, max); err != nil {
			return nil, err
		} else if size > max {
			return nil, &SizeError{Dir: dir, Size: size, Max: max}
		}
	}
	tmp, err := os.MkdirTemp(opt.TempDir, "rubichan-patch-")
	if err != nil {
		return nil, fmt.Errorf("patch: %w", err)
	}
	c := &Copy{tmp: tmp, Git: isGit}
	if isGit {
		err = c.fromGit(ctx, src, top, common, dir)
	} else {
		err = c.fromPlain(ctx, src, dir)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close removes the copy.
func (c *Copy) Close() error {
	if c == nil || c.tmp == "" {
		return nil
	}
	err := os.RemoveAll(c.tmp)
	c.tmp = ""
	return err
}

// findRepo returns the top of the work tree holding dir and its common git
// directory, or false when dir is not in a git work tree.
func findRepo(ctx context.Context, src git) (top, common string, ok bool) {
	out, err := src.output(ctx, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	if err != nil {
		return "", "", false
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 || lines[0] == "" {
		return "", "", false
	}
	return lines[0], lines[1], true
}

// fromGit makes the copy of a git checkout: a work tree checked out at
// HEAD, with the uncommitted changes and untracked files laid over it,
// whose base is recorded in the private git directory beside it, which
// borrows the user's objects. When those changes exist the base is
// committed there. The work tree then gets a repository of its own for
// the agent (see [Copy.agentRepo]).
func (c *Copy) fromGit(ctx context.Context, src git, top, common, dir string) error {
	work := filepath.Join(c.tmp, "w")
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	c.Root = filepath.Join(work, rel)
	head, err := src.line(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		head = "" // a branch without commits yet
	}
	c.BaseCommit = head
	if err := os.Mkdir(work, 0o755); err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	objects := filepath.Join(common, "objects")
	if c.g, err = c.privateGit(ctx, src, work, objects); err != nil {
		return err
	}
	copyExclude(common, c.g.gitDir)
	if head != "" {
		if err := c.g.run(ctx, "update-ref", "HEAD", head); err != nil {
			return err
		}
		if err := c.g.run(ctx, "-c", "checkout.workers=0", "read-tree", "--reset", "-u", "HEAD"); err != nil {
			return err
		}
	}
	at := src
	at.dir = top
	changed, err := dirtyPaths(ctx, at)
	if err != nil {
		return err
	}
	k := c.linkKeeper()
	for _, p := range changed {
		if err := overlay(filepath.Join(top, p), filepath.Join(work, p), k); err != nil {
			return err
		}
	}
	c.Dirty = len(changed) > 0
	if err := c.recordBase(ctx, head); err != nil {
		return err
	}
	return c.agentRepo(ctx, src, work, common, objects)
}

// privateGit makes the copy's private git directory beside the work tree
// (bare, without templates, borrowing objects from alternate when it is
// not "") and returns git for it and the work tree.
func (c *Copy) privateGit(ctx context.Context, src git, work, alternate string) (git, error) {
	gitDir := filepath.Join(c.tmp, "base.git")
	boot := git{bin: src.bin, env: src.env, dir: c.tmp} // init runs no filter, hook or template
	if err := boot.run(ctx, "init", "-q", "--bare", "--template=", gitDir); err != nil {
		return git{}, err
	}
	if alternate != "" {
		if err := writeAlternates(gitDir, alternate); err != nil {
			return git{}, err
		}
	}
	return newGit(ctx, src.env, work, gitDir, work)
}

// agentRepo gives the agent a repository of its own in the work tree
// (work/.git), so that its git status, diff and commits work and show only
// its own work: HEAD at the base, the base's index, the user's and the
// private objects borrowed. It is written before any tool runs; the code
// the sandbox confines may change it at will, which is why rubichan never
// runs git in it afterwards.
func (c *Copy) agentRepo(ctx context.Context, src git, work, common, objects string) error {
	gitDir := filepath.Join(work, ".git")
	boot := git{bin: src.bin, env: src.env, dir: c.tmp}
	if err := boot.run(ctx, "init", "-q", "--template=", work); err != nil {
		return err
	}
	if err := writeAlternates(gitDir, objects, filepath.Join(c.g.gitDir, "objects")); err != nil {
		return err
	}
	copyExclude(common, gitDir)
	if head, err := c.g.line(ctx, "rev-parse", "-q", "--verify", "HEAD"); err == nil && head != "" {
		agent, err := newGit(ctx, src.env, work, gitDir, work)
		if err != nil {
			return err
		}
		if err := agent.run(ctx, "update-ref", "HEAD", head); err != nil {
			return err
		}
	}
	return copyIndex(filepath.Join(c.g.gitDir, "index"), filepath.Join(gitDir, "index"))
}

// copyIndex copies the index file src to dst, streamed (an index holds
// about 100 bytes a file); no src, no copy.
func copyIndex(src, dst string) error {
	in, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	if _, err := io.CopyBuffer(out, in, make([]byte, 64<<10)); err != nil {
		out.Close()
		return fmt.Errorf("patch: index: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("patch: index: %w", err)
	}
	return nil
}

// writeAlternates makes gitDir borrow the object stores dirs.
func writeAlternates(gitDir string, dirs ...string) error {
	if err := os.MkdirAll(filepath.Join(gitDir, "objects", "info"), 0o755); err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	alt := strings.Join(dirs, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(gitDir, "objects", "info", "alternates"), []byte(alt), 0o644); err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	return nil
}

// recordBase stages the copy as it is and keeps its tree as the base; a
// dirty base is also committed in the copy on top of head.
func (c *Copy) recordBase(ctx context.Context, head string) error {
	var tree string
	var err error
	if c.Dirty || head == "" {
		if err := c.g.run(ctx, "add", "-A"); err != nil {
			return err
		}
		tree, err = c.g.line(ctx, "write-tree")
	} else {
		// Read, not written: writing an object the checkout already has
		// would touch its file there (git freshens it).
		tree, err = c.g.line(ctx, "rev-parse", head+"^{tree}")
	}
	if err != nil {
		return err
	}
	c.baseTree = tree
	if !c.Dirty || !c.Git {
		return nil
	}
	args := []string{"commit-tree", tree, "-m", "rubichan: the checkout's uncommitted changes and untracked files"}
	if head != "" {
		args = append(args, "-p", head)
	}
	g := c.g
	g.env = append(append([]string{}, g.env...),
		"GIT_AUTHOR_NAME=rubichan", "GIT_AUTHOR_EMAIL=rubichan@localhost",
		"GIT_COMMITTER_NAME=rubichan", "GIT_COMMITTER_EMAIL=rubichan@localhost")
	commit, err := g.line(ctx, args...)
	if err != nil {
		return err
	}
	return c.g.run(ctx, "update-ref", "HEAD", commit)
}

// linkKeeper keeps the hard-link guard of the files the copy takes from
// the workspace (see [linkKeeper]): their second names are in the private
// directory, beside the work tree, never inside it. Files git checks out
// from HEAD are new files of one link; their content is HEAD's, which the
// agent can read with git in the copy anyway.
func (c *Copy) linkKeeper() *linkKeeper {
	return &linkKeeper{dir: filepath.Join(c.tmp, "links")}
}

// copyExclude gives the copy the checkout's .git/info/exclude, so that
// what the user ignores stays out of the patch.
func copyExclude(common, gitDir string) {
	data, err := os.ReadFile(filepath.Join(common, "info", "exclude"))
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Join(gitDir, "info"), 0o755) == nil {
		_ = os.WriteFile(filepath.Join(gitDir, "info", "exclude"), data, 0o644)
	}
}

// dirtyPaths lists the paths, relative to the top of the work tree, where
// the working tree differs from HEAD: modified, added, deleted and
// untracked files that are not ignored.
func dirtyPaths(ctx context.Context, top git) ([]string, error) {
	out, err := top.output(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range strings.Split(string(out), "\x00") {
		if len(e) < 4 || strings.HasSuffix(e, "/") { // "XY path"; a nested repository ends in "/"
			continue
		}
		paths = append(paths, e[3:])
	}
	return paths, nil
}

// fromPlain makes the plain copy of a directory outside git, with a git
// directory beside it that records the base.
func (c *Copy) fromPlain(ctx context.Context, src git, dir string) error {
	work := filepath.Join(c.tmp, "w")
	c.Root = work
	if err := copyTree(dir, work, c.linkKeeper()); err != nil {
		return err
	}
	var err error
	if c.g, err = c.privateGit(ctx, src, work, ""); err != nil {
		return err
	}
	return c.recordBase(ctx, "")
}

var errSizeExceeded = errors.New("size exceeded")

// treeSize adds up the sizes of the regular files under dir, stopping
// once the total passes max.
func treeSize(dir string, max int64) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		total += fi.Size()
		if total > max {
			return errSizeExceeded
		}
		return nil
	})
	if err != nil && !errors.Is(err, errSizeExceeded) {
		return total, fmt.Errorf("patch: %w", err)
	}
	return total, nil
}
