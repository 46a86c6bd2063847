package patch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Result describes a written patch.
type Result struct {
	// Files is the number of files the patch changes (a rename is one).
	Files int
	// SHA256 is the hex digest of the patch's bytes.
	SHA256 string
	// Bytes is the patch's size; 0 when nothing changed.
	Bytes int64
}

// diffArgs are the options of the patch's diff, fixed against the user's
// configuration: git's prefixes, whole object ids (a binary hunk needs
// them), binary hunks, renames, no color, no external or textconv
// drivers, paths from the top of the work tree.
var diffArgs = []string{
	"-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false", "-c", "diff.relative=false",
	"-c", "diff.suppressBlankEmpty=false", "-c", "color.diff=never", "-c", "core.quotePath=true",
	"diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
	"-M", "--src-prefix=a/", "--dst-prefix=b/",
}

// Write stages everything in the copy that is not ignored and streams the
// patch against the base to w: a header, then git's diff with binary
// hunks. When nothing changed it writes nothing.
func (c *Copy) Write(ctx context.Context, w io.Writer) (Result, error) {
	// The drivers of the configuration as it is now (the private
	// directory's cannot have changed; the user's global one may have).
	g, err := newGit(ctx, c.g.env, c.g.dir, c.g.gitDir, c.g.workTree)
	if err != nil {
		return Result{}, err
	}
	if err := g.run(ctx, "add", "-A"); err != nil {
		return Result{}, err
	}
	names, err := g.output(ctx, append(append([]string{}, diffArgs...), "--name-only", "-z", c.baseTree, "--")...)
	if err != nil {
		return Result{}, err
	}
	files := bytes.Count(names, []byte{0})
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(w, h)}
	if files > 0 {
		if _, err := io.WriteString(cw, c.header(files)); err != nil {
			return Result{}, fmt.Errorf("patch: write: %w", err)
		}
		args := append(append([]string{}, diffArgs...), "--binary", "--full-index", c.baseTree, "--")
		if err := g.stream(ctx, cw, args...); err != nil {
			return Result{}, err
		}
	}
	return Result{Files: files, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: cw.n}, nil
}

// header is the text before the first diff, which git apply and patch
// skip: the base commit and whether the checkout was dirty.
func (c *Copy) header(files int) string {
	base := c.BaseCommit
	switch {
	case !c.Git:
		base = "none (not a git repository)"
	case base == "":
		base = "none (no commits yet)"
	}
	return fmt.Sprintf("rubichan patch\nbase-commit: %s\ndirty-base: %t\nfiles: %d\n\n", base, c.Dirty, files)
}

// WriteFile writes the patch to path atomically: a temporary file beside
// it, renamed over it once complete.
func (c *Copy) WriteFile(ctx context.Context, path string) (Result, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return Result{}, fmt.Errorf("patch: %w", err)
	}
	res, err := c.Write(ctx, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("patch: %w", cerr)
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return Result{}, err
	}
	return res, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
