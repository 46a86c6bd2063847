package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/patch"
)

// patchWriteTimeout bounds writing the patch at the end of a run, which
// may come after the run's own context has ended (a signal, --timeout).
const patchWriteTimeout = 2 * time.Minute

// PatchMode is a run under --patch: the private copy the agent works on
// and where its patch goes.
type PatchMode struct {
	copy   *patch.Copy
	dest   string    // a file, or "-"
	stdout io.Writer // for "-"
	done   bool
}

// StartPatchMode makes the private copy of the workspace s.Dir, or
// returns nil without --patch; git runs without the variables dropEnv
// names. A workspace outside git above --patch-max-size is a usage error
// (exit 2), before any request.
func StartPatchMode(ctx context.Context, s Settings, dropEnv []string, env Env, stdout io.Writer) (*PatchMode, error) {
	if s.Patch.Dest == "" {
		return nil, nil
	}
	tmp, _ := env.LookupEnv("TMPDIR")
	c, err := patch.Prepare(ctx, s.Dir, patch.Options{
		MaxSize: s.Patch.MaxSize, Env: env.Environ(), DropEnv: dropEnv, TempDir: tmp,
	})
	var se *patch.SizeError
	if errors.As(err, &se) {
		return nil, exit.UsageError{Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("run: --patch: %w", err)
	}
	if root := writableOver(c.GitDir(), c.Root, ShellSettings(s.Config).WritableRoots, SandboxCacheDir(env)); root != "" {
		c.Close()
		return nil, exit.Usagef("--patch: the copy's private git directory %s is inside the writable root %s, where the commands "+
			"the sandbox confines could make rubichan's git run a program; set TMPDIR to a directory outside the writable roots", c.GitDir(), root)
	}
	return &PatchMode{copy: c, dest: s.Patch.Dest, stdout: stdout}, nil
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

// Root is the private copy's root, where the run works.
func (p *PatchMode) Root() string { return p.copy.Root }

// Close removes the private copy.
func (p *PatchMode) Close() error {
	if p == nil {
		return nil
	}
	return p.copy.Close()
}

// Write writes the patch of everything changed so far, once; partial says
// the run did not finish. A nil PatchMode writes nothing.
func (p *PatchMode) Write(partial bool) (*agent.PatchInfo, error) {
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
			var se exit.StdoutError
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
	return &agent.PatchInfo{
		Path: p.dest, SHA256: res.SHA256, BaseCommit: p.copy.BaseCommit, DirtyBase: p.copy.Dirty,
		Files: res.Files, Partial: partial,
	}, nil
}

// PatchLine is the stderr line about the patch written.
func PatchLine(pi *agent.PatchInfo) string {
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
