package toolkit

import (
	"context"
	"encoding/json"
	"fmt"
)

// Options carries what the runner decides about the tools beyond the
// workspace.
type Options struct {
	// ReadFilter, when set, is asked about every file grep and glob meet
	// while walking a directory, with the file's path as reported in
	// [PathRef] (workspace-relative, or absolute in an extra root). Files
	// it rejects are skipped, their content and names never reach the
	// model, and the result counts them in [Meta.Skipped]. The runner
	// builds it from the policy's read rules. It must be safe for
	// concurrent use.
	ReadFilter func(path string) bool
	// SkipLinked makes grep leave out (and count as skipped) files with more
	// than one hard link: another name of the same file may be one the
	// read rules deny. The runner sets it when any read rule denies or
	// asks. It costs nothing: grep stats every file it opens anyway.
	SkipLinked bool
	// Bash configures the bash tool. Its Dir defaults to the workspace
	// root, where commands always run.
	Bash BashConfig
}

// Tools returns every tool, in the order the model sees them, built over
// ws. read, write and edit share one [ReadTracker], so a run's stale-edit
// detection covers all three: call Tools once per run.
func Tools(ws *Workspace, opts Options) []Tool {
	rt := NewReadTracker()
	bash := opts.Bash
	if bash.Dir == "" {
		bash.Dir = ws.Root()
	}
	return []Tool{
		NewRead(ws, rt),
		NewWrite(ws, rt),
		NewEdit(ws, rt),
		NewBash(bash),
		newGrepLinked(ws, opts.ReadFilter, opts.SkipLinked),
		NewGlob(ws, opts.ReadFilter),
		NewLs(ws),
	}
}

// SafeRun runs tool with args and turns a panic inside the tool into an
// error result, so one broken call cannot end the run; a Go error from the
// tool is passed through. The runner uses it for every call.
func SafeRun(ctx context.Context, tool Tool, args json.RawMessage) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{Content: fmt.Sprintf("the %s tool failed internally (panic: %v); this is a bug in the tool, not in your call", safeName(tool), p), IsError: true}
			err = nil
		}
	}()
	return tool.Run(ctx, args)
}

// safeName returns the tool's name, or "?" when Spec itself panics.
func safeName(tool Tool) (name string) {
	defer func() {
		if recover() != nil {
			name = "?"
		}
	}()
	return tool.Spec().Name
}

// SafeEffects is [Tool.Effects] with a panic turned into an error, which
// the runner treats like any other refusal to describe a call.
func SafeEffects(tool Tool, args json.RawMessage) (eff Effects, err error) {
	defer func() {
		if p := recover(); p != nil {
			eff, err = Effects{}, fmt.Errorf("the %s tool failed internally describing this call (panic: %v)", safeName(tool), p)
		}
	}()
	return tool.Effects(args)
}
