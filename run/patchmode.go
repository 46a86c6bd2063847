package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rubichan/rubichan/run/patch"
)

// patchWriteTimeout bounds writing the patch at the end of a run, which
// may come after the run's own context has ended (a signal, --timeout).
const patchWriteTimeout = 2 * time.Minute

// patchMode is a run under --patch: the private copy the agent works on
// and where its patch goes.
type patchMode struct {
	copy   *patch.Copy
	dest   string    // a file, or "-"
	stdout io.Writer // for "-"
	done   bool
}

// startPatchMode makes the private copy of the workspace, or returns nil
// without --patch. A workspace outside git above --patch-max-size is a
// usage error (exit 2), before any request.
func startPatchMode(ctx context.Context, cfg execConfig, env environment, stdout io.Writer) (*patchMode, error) {
	if cfg.Patch == "" {
		return nil, nil
	}
	tmp, _ := env.LookupEnv("TMPDIR")
	c, err := patch.Prepare(ctx, cfg.Dir, patch.Options{
		MaxSize: cfg.PatchMaxSize, Env: env.Environ(), DropEnv: cfg.childDropEnv(), TempDir: tmp,
	})
	var se *patch.SizeError
	if errors.As(err, &se) {
		return nil, usageError{Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("run: --patch: %w", err)
	}
	if root := writableOver(c.GitDir(), c.Root, shellSettings(cfg.Settings).WritableRoots, sandboxCacheDir(env)); root != "" {
		c.Close()
		return nil, usagef("--patch: the copy's private git directory %s is inside the writable root %s, where the commands "+
			"the sandbox confines could make rubichan's git run a program; set TMPDIR to a directory outside the writable roots", c.GitDir(), root)
	}
	return &patchMode{copy: c, dest: cfg.Patch, stdout: stdout}, nil
}

// writableOver returns the writable root of the sandbox (the configured
// ones, relative ones taken from the copy's root, and the sandbox's
// cache) that holds gitDir, or "" when none does.
func writableOver(gitDir, root string, writable []string, cache string) string {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	dir := real(gitDir)
	for _, w := range append(slices.Clip(writable), cache) {
		if w == "" {
			continue
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(root, w)
		}
		if rel, err := filepath.Rel(real(w), dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return w
		}
	}
	return ""
}

// Close removes the private copy.
func (p *patchMode) Close() error {
	if p == nil {
		return nil
	}
	return p.copy.Close()
}

// write writes the patch of everything changed so far, once; partial says
// the run did not finish. A nil patchMode writes nothing.
func (p *patchMode) write(partial bool) (*PatchInfo, error) {
	if p == nil || p.done {
		return nil, nil
	}
	p.done = true
	ctx, cancel := context.WithTimeout(context.Background(), patchWriteTimeout)
	defer cancel()
	var res patch.Result
	var err error
	if p.dest == "-" {
		res, err = p.copy.Write(ctx, p.stdout)
		if err != nil {
			var se stdoutError
			if !errors.As(err, &se) {
				err = fmt.Errorf("run: write the patch: %w", err)
			}
		}
	} else {
		res, err = p.copy.WriteFile(ctx, p.dest)
	}
	if err != nil {
		return nil, err
	}
	return &PatchInfo{
		Path: p.dest, SHA256: res.SHA256, BaseCommit: p.copy.BaseCommit, DirtyBase: p.copy.Dirty,
		Files: res.Files, Partial: partial,
	}, nil
}

// patchLine is the stderr line about the patch written.
func patchLine(pi *PatchInfo) string {
	where := pi.Path
	if where == "-" {
		where = "stdout"
	}
	if pi.Files == 0 {
		return "no changes: the patch on " + where + " is empty"
	}
	files := "files"
	if pi.Files == 1 {
		files = "file"
	}
	s := fmt.Sprintf("patch written to %s · %d %s", where, pi.Files, files)
	if pi.Partial {
		s += " · partial: the run did not finish"
	}
	return s
}
