package mcp

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rubichan/rubichan/toolkit"
)

// Stop timing of a stdio server: SIGTERM to its group, then SIGKILL after
// stopGrace; stopWait bounds the wait after SIGKILL.
const (
	stopGrace = 2 * time.Second
	stopWait  = 3 * time.Second
)

// stderrKeep is how much of a server's stderr is kept for the reason of a
// failed start.
const stderrKeep = 2 << 10

// proc is a running stdio server: the leader of its own process group.
type proc struct {
	group  *toolkit.Group
	stdin  io.Closer
	stderr *tailBuffer
	exited chan struct{} // closed once the leader is reaped
	err    error         // the leader's exit, set before exited closes
	out    *jsonLines    // its stdout, without the lines that are not JSON-RPC
}

// startProc starts the server's command with its environment and returns
// the transport over its stdin and stdout.
func startProc(cfg ServerConfig, opts *Options) (*proc, sdk.Transport, error) {
	prog, err := commandPath(cfg.Command, opts)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(prog, cfg.Args...)
	cmd.Args[0] = cfg.Command
	cmd.Dir = opts.Dir
	cmd.Env = serverEnv(cfg, opts)
	p := &proc{stderr: &tailBuffer{max: stderrKeep}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if opts.Prepare != nil {
		if err := opts.Prepare(cmd, cfg); err != nil {
			return nil, nil, err
		}
	}
	g, err := toolkit.StartGroup(cmd, opts.Reaper)
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, nil, err
	}
	p.group, p.stdin = g, stdin
	go func() {
		p.err = g.Wait()
		close(p.exited)
	}()
	p.out = newJSONLines(stdout)
	return p, &sdk.IOTransport{Reader: p.out, Writer: stdin}, nil
}

// commandPath is the program a server's command names. A command with a
// slash is used as named (relative to the workspace, where the server
// runs): the configuration chose it. Another is looked up, as a shell
// would, on a clean PATH: the run's own PATH without empty, relative and
// workspace entries ([toolkit.CleanPath]) and without node_modules
// directories (npm run puts the project's node_modules/.bin first), then
// the configured PathAdd. So a checkout cannot plant the program that a
// configured name such as "github-mcp-server" runs, whatever PATH
// rubichan was started with; rubichan's own exec.LookPath would search
// that PATH as it is.
func commandPath(name string, opts *Options) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	var inherited []string
	for _, kv := range opts.Environ {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			inherited = filepath.SplitList(v) // the last one wins, as in the environment
		}
	}
	inherited = slices.DeleteFunc(inherited, func(e string) bool {
		return slices.Contains(strings.Split(filepath.ToSlash(e), "/"), "node_modules")
	})
	path := toolkit.CleanPath(strings.Join(inherited, string(filepath.ListSeparator)), opts.Dir, opts.PathAdd)
	if name != "" {
		for _, dir := range filepath.SplitList(path) {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return p, nil
			}
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// stop ends the server's process group: stdin closed, SIGTERM, SIGKILL
// after stopGrace. It returns once the leader is reaped, or after a
// bounded wait.
func (p *proc) stop() {
	p.stdin.Close()
	p.group.Terminate()
	select {
	case <-p.exited:
		return
	case <-time.After(stopGrace):
	}
	p.group.Kill()
	select {
	case <-p.exited:
	case <-time.After(stopWait):
	}
}

// exitReason says how the process ended, with the end of its stderr; ""
// while it runs.
func (p *proc) exitReason() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	why := "exited"
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		why = ee.ProcessState.String() // "exit status 1", "signal: killed"
	}
	if tail := p.stderr.lastLine(); tail != "" {
		why += ": " + tail
	}
	return why
}

// serverEnv is the server's environment: the bash tool's scrubbed one
// with the run's TMPDIR, plus its configured env with $NAME expanded,
// minus the DropEnv names.
func serverEnv(cfg ServerConfig, opts *Options) []string {
	env := toolkit.CommandEnv(opts.Environ, opts.EnvAllow, opts.DropEnv, opts.Dir, opts.PathAdd)
	if opts.TempDir != "" {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
		env = append(env, "TMPDIR="+opts.TempDir)
	}
	names := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if k == "" || strings.ContainsAny(k, "=\x00") || slices.Contains(opts.DropEnv, k) {
			continue
		}
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
		env = append(env, k+"="+expand(cfg.Env[k], expandable(opts)))
	}
	return env
}

// expandable is the environment $NAME expands against in a server's env and
// headers: the run's, without the DropEnv names, so that no configured
// value can hand a server the provider's key under another name.
func expandable(opts *Options) []string {
	return slices.DeleteFunc(slices.Clone(opts.Environ), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(opts.DropEnv, name)
	})
}

// expand replaces $NAME and ${NAME} in s with their values in environ.
func expand(s string, environ []string) string {
	return os.Expand(s, func(name string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(environ[i], name+"="); ok {
				return v
			}
		}
		return ""
	})
}

// tailBuffer keeps the last max bytes written to it. It is safe for
// concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// lastLine returns the last non-empty line written, at most 300 bytes.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 300 {
		last = last[:300] + "…"
	}
	return last
}

// String returns what is kept.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
