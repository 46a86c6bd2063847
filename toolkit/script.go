package toolkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ScriptOutputMax caps the bytes [ScriptRunner] keeps of a command's
// stdout and of its stderr (head and tail, each).
const ScriptOutputMax = 64 << 10

// pipeBufferMin is the smallest pipe buffer of the systems Go runs on
// (4 KB on some; Linux has 64 KB): stdin up to it is written before the
// command is waited for, without a goroutine.
const pipeBufferMin = 4 << 10

// ScriptConfig configures [NewScriptRunner]. Env, EnvAllow, DropEnv and
// PathAdd mean what they mean in [BashConfig]: the commands get the same
// scrubbed environment as the bash tool's.
type ScriptConfig struct {
	Dir      string
	Env      []string
	EnvAllow []string
	DropEnv  []string
	PathAdd  []string
	// Set are "NAME=value" entries added after the scrubbing, winning
	// over everything else (RUBICHAN_SESSION_ID, say).
	Set []string
	// GracePeriod is the time between SIGTERM and SIGKILL to a command's
	// process group; zero: [BashGracePeriod].
	GracePeriod time.Duration
	// Reaper, when set, ends what a command leaves behind outside its
	// process group (a daemon that called setsid), as for the bash tool.
	Reaper *Reaper
	// TempDir, when set, is the commands' TMPDIR, as for the bash tool.
	TempDir string
	// Sandbox, when set, confines the commands as the bash tool's are
	// (see [NewSandbox]); its owner closes it.
	Sandbox *Sandbox
	// CallEnv means what it means in [BashConfig]: a command's variables
	// from its context (TRACEPARENT).
	CallEnv func(ctx context.Context) []string
}

// ScriptRunner runs short commands for the runner — a team's hooks — the
// way the bash tool runs the model's: `sh -c` in the workspace root, in
// their own process group (session), with a scrubbed environment and
// hardened git. Unlike bash, a command gets its stdin from the caller and
// its stdout and stderr apart, and whatever it leaves running in its
// group is killed as soon as it exits.
//
// A ScriptRunner is immutable after [NewScriptRunner] and safe for
// concurrent use.
type ScriptRunner struct {
	dir    string
	shell  string
	env    []string
	grace  time.Duration
	reaper *Reaper   // may be nil
	box    *Sandbox  // may be nil
	setup  sync.Once // points the caches of sandboxed commands (see Sandbox.commandEnv)
	extra  func(ctx context.Context) []string
}

// NewScriptRunner returns a runner configured by cfg. The environment is
// built once, here.
func NewScriptRunner(cfg ScriptConfig) *ScriptRunner {
	r := &ScriptRunner{dir: cfg.Dir, grace: cfg.GracePeriod, reaper: cfg.Reaper, box: cfg.Sandbox, extra: cfg.CallEnv}
	if abs, err := filepath.Abs(r.dir); err == nil {
		r.dir = abs
	}
	if r.grace <= 0 {
		r.grace = BashGracePeriod
	}
	env := commandEnv(cfg.Env, cfg.EnvAllow, cfg.DropEnv, r.dir, cfg.PathAdd)
	if cfg.TempDir != "" {
		env = setEnv(env, map[string]string{"TMPDIR": cfg.TempDir})
	}
	for _, kv := range cfg.Set {
		name, _, _ := strings.Cut(kv, "=")
		env = dropName(env, name)
		env = append(env, kv)
	}
	r.env = env
	r.shell = findSh(env)
	return r
}

// dropName removes every NAME= entry from env.
func dropName(env []string, name string) []string {
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// findSh looks sh up in env's absolute PATH entries; /bin/sh otherwise.
func findSh(env []string) string {
	var path string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		f := filepath.Join(dir, "sh")
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return f
		}
	}
	return "/bin/sh"
}

// ScriptResult is how a command ended.
type ScriptResult struct {
	Stdout, Stderr string
	// ExitCode is the shell's exit status; -1 when a signal ended it.
	ExitCode int
	// TimedOut says the timeout stopped it (ExitCode is then what the
	// signal left: usually -1).
	TimedOut bool
	// Duration is the time from start to the end of its output.
	Duration time.Duration
}

// Run runs command with stdin on its standard input and waits for it, its
// timeout or ctx. On timeout or when ctx ends the group gets SIGTERM, then
// SIGKILL a grace period later. The error says the command could not be
// started or its pipes not made; a command that fails is a result.
func (r *ScriptRunner) Run(ctx context.Context, command string, stdin []byte, timeout time.Duration) (ScriptResult, error) {
	start := time.Now()
	inR, inW, err := os.Pipe()
	if err != nil {
		return ScriptResult{}, fmt.Errorf("script: stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return ScriptResult{}, fmt.Errorf("script: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return ScriptResult{}, fmt.Errorf("script: stderr pipe: %w", err)
	}
	cmd := &exec.Cmd{
		Path: r.shell, Args: []string{r.shell, "-c", command}, Dir: r.dir, Env: withCallEnv(ctx, r.environ(), r.extra),
		Stdin: inR, Stdout: outW, Stderr: errW,
	}
	g, err := r.box.start(cmd, r.reaper)
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return ScriptResult{}, fmt.Errorf("script: start %s: %w", r.shell, err)
	}
	// Input that fits in the pipe's buffer is written at once; more is
	// written aside, and a command that never reads it gets EPIPE at its
	// exit.
	done := make(chan struct{}, 3)
	pending := 2
	if len(stdin) <= pipeBufferMin {
		_, _ = inW.Write(stdin)
		inW.Close()
	} else {
		pending++
		go func() {
			_, _ = inW.Write(stdin)
			inW.Close()
			done <- struct{}{}
		}()
	}
	stdout, stderr := newHeadTail(ScriptOutputMax), newHeadTail(ScriptOutputMax)
	go func() { _ = drainOutput(stdout, outR); done <- struct{}{} }()
	go func() { _ = drainOutput(stderr, errR); done <- struct{}{} }()

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	exited := make(chan struct{})
	stopped := make(chan bool, 1)
	go func() { stopped <- r.watch(runCtx, g, exited) }()
	waitErr := g.finish() // kills what the command left in its group
	close(exited)
	timedOut := <-stopped
	r.closeLate(done, pending, inW, outR, errR)

	res := ScriptResult{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: -1, TimedOut: timedOut, Duration: time.Since(start)}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return res, fmt.Errorf("script: wait: %w", waitErr)
	}
	if st := g.state; st != nil && st.Exited() {
		res.ExitCode = st.ExitCode()
	}
	return res, nil
}

// watch signals the group once ctx ends before the command exited:
// SIGTERM, then SIGKILL after the grace period. It reports whether it
// signalled.
func (r *ScriptRunner) watch(ctx context.Context, g *procGroup, exited <-chan struct{}) bool {
	select {
	case <-exited:
		return false
	case <-ctx.Done():
	}
	g.terminate()
	t := time.NewTimer(r.grace)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
		g.kill()
	}
	return true
}

// closeLate waits a grace period for the pending pipe goroutines to
// report on done, then closes the pipes under them: a process that left
// the group may hold them open.
func (r *ScriptRunner) closeLate(done <-chan struct{}, pending int, files ...io.Closer) {
	t := time.NewTimer(r.grace)
	defer t.Stop()
	for ; pending > 0; pending-- {
		select {
		case <-done:
			continue
		case <-t.C:
		}
		break
	}
	for _, f := range files {
		_ = f.Close()
	}
	for ; pending > 0; pending-- {
		<-done
	}
}

// environ is the commands' environment, with the caches of sandboxed
// commands pointed into the sandbox's cache directory.
func (r *ScriptRunner) environ() []string {
	if r.box != nil {
		r.setup.Do(func() { r.env = r.box.commandEnv(r.env) })
	}
	return r.env
}

// Shell is the shell commands run with.
func (r *ScriptRunner) Shell() string { return r.shell }

// Environ returns a copy of the commands' environment.
func (r *ScriptRunner) Environ() []string { return append([]string(nil), r.environ()...) }
