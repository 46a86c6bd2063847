package toolkit

import (
	"bytes"
	"context"
	_ "embed" // the tool description
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed bash.md
var bashDescription string

// Defaults of [BashConfig].
const (
	BashDefaultTimeout = 120 * time.Second // a command's timeout when the call gives none
	BashMaxTimeout     = 600 * time.Second // the longest timeout a call may ask for
	// BashGracePeriod is how long a process group has between SIGTERM and
	// SIGKILL: long enough for a test runner or a build to flush its
	// output and remove its temporary files, short enough not to matter
	// next to a timeout.
	BashGracePeriod = 3 * time.Second
)

// BashConfig configures [NewBash]. Zero durations take the Bash* defaults.
type BashConfig struct {
	// Dir is the workspace root, the working directory of every command.
	// A relative Dir is made absolute once, by NewBash.
	Dir string
	// Env is the base environment ("NAME=value"), handed in by the caller;
	// the tool never reads the process environment itself. Secret-looking
	// names are removed from it; see [BashConfig.EnvAllow].
	Env []string
	// EnvAllow lists names passed through although they look secret
	// (they contain KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL).
	EnvAllow []string
	// DropEnv lists further names to remove, such as the provider key
	// variables the runner knows of. DropEnv wins over EnvAllow.
	DropEnv []string
	// DefaultTimeout applies when a call gives no timeout; it is capped
	// at MaxTimeout.
	DefaultTimeout time.Duration
	// MaxTimeout is the longest timeout a call may ask for; longer ones
	// are reduced to it.
	MaxTimeout time.Duration
	// GracePeriod is the time between SIGTERM and SIGKILL to the command's
	// process group when it times out or is cancelled. After SIGKILL the
	// tool waits one more GracePeriod for the output pipe to close before
	// it stops reading.
	GracePeriod time.Duration
	// PathAdd lists directories appended to the commands' PATH after it is
	// cleaned of empty, ".", relative and in-workspace entries (see
	// cleanPath): absolute, or relative to Dir, such as a workspace bin
	// directory the user trusts.
	PathAdd []string
	// TempDir is the run's private temporary directory, handed to the
	// commands as TMPDIR and writable in the sandbox; empty leaves TMPDIR
	// as Env has it.
	TempDir string
	// Sandbox confines the commands with the OS sandbox.
	Sandbox BashSandbox
	// Confine, when set, is the run's sandbox, shared with its hooks and
	// --verify (see [NewSandbox]); it wins over Sandbox, and its owner
	// closes it. Without it an enabled Sandbox gets a sandbox of its own,
	// which [Bash.Close] stops.
	Confine *Sandbox
	// CallEnv, when set, returns variables ("NAME=value") one command
	// gets besides Env, from the call's context: the caller's trace
	// context (TRACEPARENT), so that the command joins the call's span.
	CallEnv func(ctx context.Context) []string
	// Shell is the shell to run as `Shell -c command`. Empty: bash from
	// Env's PATH, else sh from it, else /bin/sh. Relative PATH entries are
	// never searched, so a workspace cannot plant its own shell.
	Shell string
	// Reaper, when set, ends what a command leaves behind outside its
	// process group (see [Reaper]).
	Reaper *Reaper
}

// Bash is the bash tool: it runs one shell command per call in the
// workspace root, in its own process group, with stdin from /dev/null, a
// scrubbed environment and hardened git, and returns the combined output
// capped to the first and last bytes.
//
// A Bash is immutable after [NewBash] and safe for concurrent use; each
// callBash runs its own process group.
type Bash struct {
	dir   string
	shell string
	env   []string
	defTO time.Duration
	maxTO time.Duration
	grace time.Duration
	spec  Spec
	args  *argSchema // spec.Schema, parsed once
	box   *Sandbox   // nil: commands run unconfined
	owned bool       // box is this tool's own, closed by Close
	setup sync.Once
	// reaper is shared with the caller, which sweeps at the end of a run.
	reaper *Reaper
	vars   map[string]string // see [Bash.Vars]
	// extra is [BashConfig.CallEnv].
	extra func(ctx context.Context) []string
	// null is /dev/null, every command's standard input (see devNull).
	null     *os.File
	nullOnce sync.Once
}

// NewBash returns the bash tool configured by cfg.
func NewBash(cfg BashConfig) *Bash {
	b := &Bash{
		extra: cfg.CallEnv,
		dir:   cfg.Dir,
		shell: cfg.Shell,
		maxTO: cfg.MaxTimeout,
		defTO: cfg.DefaultTimeout,
		grace: cfg.GracePeriod,

		reaper: cfg.Reaper,
	}
	if abs, err := filepath.Abs(b.dir); err == nil {
		b.dir = abs
	}
	if b.maxTO <= 0 {
		b.maxTO = BashMaxTimeout
	}
	if b.defTO <= 0 {
		b.defTO = BashDefaultTimeout
	}
	b.defTO = min(b.defTO, b.maxTO)
	if b.grace <= 0 {
		b.grace = BashGracePeriod
	}
	b.env = commandEnv(cfg.Env, cfg.EnvAllow, cfg.DropEnv, b.dir, cfg.PathAdd)
	if cfg.TempDir != "" {
		b.env = setEnv(b.env, map[string]string{"TMPDIR": cfg.TempDir})
	}
	b.vars = map[string]string{}
	for _, name := range []string{"HOME", "PWD", "TMPDIR", "USER"} {
		// The sandbox changes the caches' variables only (see cacheEnv).
		if v := lookupEnv(b.env, name); v != "" {
			b.vars[name] = v
		}
	}
	b.box = cfg.Confine
	if b.box == nil {
		b.box = NewSandbox(cfg.Sandbox, b.dir, cfg.TempDir, b.reaper)
		b.owned = b.box != nil
	}
	if b.shell == "" {
		b.shell = findShell(b.env)
	}
	b.spec = Spec{
		Name:        "bash",
		Description: b.describe(),
		Schema:      b.schema(),
	}
	b.args = newArgSchema(b.spec.Schema)
	return b
}

// Spec describes the tool to the model.
func (b *Bash) Spec() Spec { return b.spec }

// Vars returns the values of HOME, PWD, TMPDIR and USER that every
// command starts with, as the tool sets them (PWD the workspace root,
// TMPDIR the run's temporary directory); a variable the environment
// lacks is left out. The runner hands them to the policy, which judges an
// expansion of one with its value. The map is the caller's.
func (b *Bash) Vars() map[string]string { return maps.Clone(b.vars) }

// Effects reports that the call executes its command in the workspace
// root: Kind [EffectExecute], Command exactly as given, Dir the absolute
// workspace root.
func (b *Bash) Effects(args json.RawMessage) (Effects, error) {
	p, _, err := b.decode(args)
	if err != nil {
		return Effects{}, err
	}
	return Effects{Kind: EffectExecute, Command: p.Command, Dir: b.dir, Summary: p.Command}, nil
}

// Run runs the command and waits for it, its timeout or ctx.
//
// The result's content is the combined output, exactly, when the command
// exits 0. Otherwise the result is an error whose content ends in notes
// such as "[exit code 2]" or "[timed out after 2m0s; ...]". Meta.ExitCode
// is set when the shell exited (nil when a signal ended it) and
// Meta.Truncated when output was cut. A cancelled ctx stops the process
// group like a timeout and is reported as an error result, not an error;
// the caller can see ctx.Err() itself. A Go error means the shell could
// not be started or its output not read.
func (b *Bash) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	p, timeout, err := b.decode(args)
	if err != nil {
		return Result{Content: err.Error(), IsError: true}, nil
	}
	if ctx.Err() != nil {
		return Result{Content: "[not started: " + context.Cause(ctx).Error() + "]", IsError: true}, nil
	}
	return b.run(ctx, p.Command, timeout)
}

// stopStage is how far the tool had to go to stop a command.
type stopStage uint8

const (
	stopNone    stopStage = iota // the command ended by itself
	stopTerm                     // its group got SIGTERM
	stopKill                     // and SIGKILL after the grace period
	stopAbandon                  // and the output pipe was still open a grace period later
)

// callEnv is the environment of a command run under ctx: Env with what
// [BashConfig.CallEnv] adds.
func (b *Bash) callEnv(ctx context.Context) []string { return withCallEnv(ctx, b.env, b.extra) }

// withCallEnv is env with the variables extra returns for ctx (nil
// extra: env).
func withCallEnv(ctx context.Context, env []string, extra func(context.Context) []string) []string {
	if extra == nil {
		return env
	}
	set := map[string]string{}
	for _, kv := range extra(ctx) {
		if name, val, ok := strings.Cut(kv, "="); ok {
			set[name] = val
		}
	}
	return setEnv(env, set)
}

func (b *Bash) run(ctx context.Context, command string, timeout time.Duration) (Result, error) {
	pr, pw, err := outputPipe()
	if err != nil {
		return Result{}, fmt.Errorf("bash: output pipe: %w", err)
	}
	if b.box != nil {
		b.setup.Do(func() { b.env = b.box.commandEnv(b.env) })
	}
	// One pipe serves stdout and stderr, so the output keeps the order it
	// was written in.
	cmd := &exec.Cmd{
		Path:   b.shell,
		Args:   []string{b.shell, "-c", command},
		Dir:    b.dir,
		Env:    b.callEnv(ctx),
		Stdout: pw,
		Stderr: pw,
	}
	if null := b.devNull(); null != nil {
		cmd.Stdin = null
	}
	g, err := b.box.start(cmd, b.reaper)
	pw.Close() // the child has its copy; EOF comes when every holder is gone
	if err != nil {
		pr.Close()
		return Result{}, fmt.Errorf("bash: start %s: %w", b.shell, err)
	}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The group is stopped once the context ends; until then nothing
	// waits on a goroutine of its own (most commands end by themselves).
	done := make(chan struct{})
	stopped := make(chan stopStage, 1)
	unwatch := context.AfterFunc(runCtx, func() { stopped <- b.stop(g, pr, done) })

	// Read to EOF first, then wait: Wait before the reads finish loses
	// output (os/exec documents this for StdoutPipe).
	out := newHeadTail(bashOutputMax)
	readErr := drainOutput(out, pr)
	if readErr != nil {
		cancel() // nobody reads the pipe any more: stop the command
	}
	waitErr := g.exited()
	close(done)
	stage := stopNone
	if !unwatch() { // the context ended: stop ran, or runs
		stage = <-stopped
	}
	pr.Close()
	b.box.settleLater(g)

	if readErr != nil && stage != stopAbandon {
		return Result{}, fmt.Errorf("bash: read output: %w", readErr)
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return Result{}, fmt.Errorf("bash: wait: %w", waitErr)
	}
	return b.result(ctx, g.state, out, stage, timeout), nil
}

// devNull returns /dev/null, opened at the tool's first command and kept
// until Close: the standard input of every command (opened for each, it
// cost seven system calls a command, the runtime trying its poller on
// it). nil when it cannot be opened: a command's stdin is then left nil,
// which os/exec and the spawner's path connect to /dev/null themselves.
func (b *Bash) devNull() *os.File {
	b.nullOnce.Do(func() {
		if f, err := os.Open(os.DevNull); err == nil {
			b.null = f
		}
	})
	return b.null
}

// drainOutput copies r into w until EOF. Most commands print little:
// the buffer starts at 4 KB and becomes 32 KB once a read fills it,
// which a command printing a lot soon does (it was 32 KB for every
// call: 1.56 MB of the 8.4 MB a 50-call run allocated, the largest item).
func drainOutput(w io.Writer, r io.Reader) error {
	buf := make([]byte, 4<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n]) // headTail never fails
			if n == len(buf) && n < 32<<10 {
				buf = make([]byte, 32<<10)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// stop stops the group, whose context has ended: SIGTERM, SIGKILL a grace
// period later, and a grace period after that it closes the output pipe,
// which a process that left the group may still hold. It returns when
// done is closed, reporting how far it went.
func (b *Bash) stop(g *procGroup, pr *os.File, done <-chan struct{}) stopStage {
	select {
	case <-done: // finished just as time ran out
		return stopNone
	default:
	}
	g.terminate()
	t := time.NewTimer(b.grace)
	defer t.Stop()
	select {
	case <-done:
		return stopTerm
	case <-t.C:
	}
	g.kill()
	t.Reset(b.grace)
	select {
	case <-done:
		return stopKill
	case <-t.C:
	}
	_ = pr.Close()
	return stopAbandon
}

// result turns the finished command into what the model sees.
func (b *Bash) result(ctx context.Context, st exitState, out *headTail, stage stopStage, timeout time.Duration) Result {
	res := Result{Meta: Meta{Truncated: out.Truncated()}}
	var notes []string
	if stage != stopNone {
		var why string
		if ctx.Err() != nil {
			why = "cancelled (" + context.Cause(ctx).Error() + ")"
		} else {
			why = "timed out after " + timeout.String()
		}
		s := "[" + why + "; the process group got SIGTERM"
		if stage >= stopKill {
			s += ", then SIGKILL after " + b.grace.String()
		}
		if stage >= stopAbandon {
			s += "; output still held open by a process outside the group was abandoned"
		}
		notes = append(notes, s+"]")
		res.IsError = true
	}
	if st.Exited() {
		code := st.ExitCode()
		res.Meta.ExitCode = &code
		if code != 0 {
			notes = append(notes, "[exit code "+strconv.Itoa(code)+"]")
			res.IsError = true
		}
	} else {
		notes = append(notes, "["+st.String()+"]") // "signal: killed"
		res.IsError = true
	}
	text := out.String()
	if h := b.box.hint(text); res.IsError && h != "" {
		notes = append(notes, h)
	}
	if len(notes) == 0 {
		res.Content = text
		return res
	}
	var sb strings.Builder
	sb.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		sb.WriteByte('\n')
	}
	sb.WriteString(strings.Join(notes, "\n"))
	res.Content = sb.String()
	return res
}

// bashParams are the tool's arguments.
type bashParams struct {
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout,omitempty"` // seconds
}

// decode parses args and resolves the timeout. Its errors are meant for
// the model.
func (b *Bash) decode(args json.RawMessage) (bashParams, time.Duration, error) {
	var p bashParams
	schema, err := b.args.parsed()
	if err == nil {
		err = checkKeys(schema, args)
	}
	if err != nil {
		return p, 0, fmt.Errorf("bash: invalid arguments: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&p); err != nil {
		return p, 0, fmt.Errorf("bash: invalid arguments: %w", err)
	}
	if dec.More() {
		return p, 0, errors.New("bash: invalid arguments: more than one JSON value")
	}
	if strings.TrimSpace(p.Command) == "" {
		return p, 0, errors.New("bash: command is required and must not be empty")
	}
	if p.Timeout == nil || *p.Timeout == 0 {
		return p, b.defTO, nil
	}
	sec := *p.Timeout
	if sec < 0 {
		return p, 0, fmt.Errorf("bash: timeout must be a positive number of seconds, got %v", sec)
	}
	if sec >= b.maxTO.Seconds() {
		return p, b.maxTO, nil
	}
	d := time.Duration(sec * float64(time.Second))
	if d <= 0 { // below a nanosecond
		return p, 0, fmt.Errorf("bash: timeout must be a positive number of seconds, got %v", sec)
	}
	return p, d, nil
}

// describe fills the embedded description with this tool's limits.
func (b *Bash) describe() string {
	return strings.NewReplacer(
		"{{DEFAULT}}", bashSeconds(b.defTO),
		"{{MAX}}", bashSeconds(b.maxTO),
		"{{GRACE}}", bashSeconds(b.grace)+" seconds",
		"{{OUTMAX}}", strconv.Itoa(bashOutputMax>>10)+" KB",
	).Replace(bashDescription)
}

// schema is the JSON schema of [bashParams], with this tool's limits.
func (b *Bash) schema() json.RawMessage {
	desc, _ := json.Marshal(fmt.Sprintf("Seconds before the command is stopped; default %s, at most %s.",
		bashSeconds(b.defTO), bashSeconds(b.maxTO)))
	return json.RawMessage(`{"type":"object","properties":{` +
		`"command":{"type":"string","description":"The shell command to run in the workspace root."},` +
		`"timeout":{"type":"number","description":` + string(desc) + `}},` +
		`"required":["command"],"additionalProperties":false}`)
}

// bashSeconds formats d as a number of seconds, without trailing zeros.
func bashSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// findShell looks bash, then sh, up in env's PATH, skipping relative
// entries; it falls back to /bin/sh.
func findShell(env []string) string {
	var path string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v // the last one wins, as in a shell
		}
	}
	for _, name := range []string{"bash", "sh"} {
		for _, dir := range filepath.SplitList(path) {
			if !filepath.IsAbs(dir) {
				continue
			}
			f := filepath.Join(dir, name)
			if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return f
			}
		}
	}
	return "/bin/sh"
}

// Close closes the tool's /dev/null and stops the sandbox's spawner when
// the tool has its own sandbox (not one given in [BashConfig.Confine]).
func (b *Bash) Close() error {
	b.nullOnce.Do(func() {}) // no command opens it after this
	if b.null != nil {
		b.null.Close()
		b.null = nil
	}
	if !b.owned {
		return nil
	}
	return b.box.Close()
}
