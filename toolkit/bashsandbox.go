package toolkit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// BashSandbox configures the OS sandbox of the bash tool's commands (see
// package [sandbox]).
type BashSandbox struct {
	// Enabled runs every command through the sandbox helper; the runner
	// sets it on Linux unless the sandbox is off.
	Enabled bool
	// Exe is the rubichan executable that is started in helper mode;
	// empty means /proc/self/exe.
	Exe string
	// Network allows TCP connections and binds.
	Network bool
	// ABI is the Landlock ABI whose rules are applied: the one the runner
	// reported (see [sandbox.State]); 0 applies none.
	ABI int
	// Isolate starts the helper and the spawner in namespaces of their
	// own, which refuse metadata changes outside the writable roots and,
	// with the network off, every packet (see [sandbox.Rules.Namespaces]):
	// the runner sets it where [sandbox.ProbeNamespaces] allows.
	Isolate bool
	// Writable are directories writable besides the workspace and
	// [BashConfig.TempDir]: absolute, or relative to the workspace.
	Writable []string
	// CacheDir, when set, is a writable directory that only sandboxed
	// commands use as their cache (XDG_CACHE_HOME, GOCACHE), kept from
	// run to run, created before the first command; empty (or one that
	// cannot be made) puts their caches in [BashConfig.TempDir].
	CacheDir string
}

// Sandbox is the OS sandbox of one run's commands — the bash tool's, the
// hooks' ([ScriptConfig.Sandbox]) and --verify's — which all get the same
// rules: the helper and the rules it applies and, from the first command
// on, the run's [sandbox.Spawner], a helper that confines itself once and
// then starts each command already confined (what saves every command the
// start-up of a rubichan process). If the spawner cannot be started, every
// command goes through the one-shot helper ([sandbox.HelperCommand]),
// which fails closed in the same way: a command never runs unconfined.
//
// A Sandbox is safe for concurrent use. [Sandbox.Close] stops the
// spawner; a nil *Sandbox confines nothing.
type Sandbox struct {
	exe      string
	rules    sandbox.Rules // complete after prepare
	cacheDir string        // asked for; cache is the one in use
	tempDir  string
	reaper   *Reaper

	once  sync.Once
	cache string // where the commands' caches go; "" leaves them as they are
	mu    sync.Mutex
	sp    *sandbox.Spawner // nil: not started, failed, or closed
	tried bool             // the spawner was tried (it is started at most once)

	settleMu sync.Mutex
	settling []chan struct{} // closed as each command in settleLater settles
}

// NewSandbox returns the sandbox cfg describes for commands run in the
// workspace dir with the temporary directory tmp (writable, and where the
// caches go without cfg.CacheDir); r (may be nil) learns of the spawner
// so that it is not taken for a leftover. It returns nil when cfg is not
// enabled.
func NewSandbox(cfg BashSandbox, dir, tmp string, r *Reaper) *Sandbox {
	if !cfg.Enabled {
		return nil
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	s := &Sandbox{exe: cfg.Exe, rules: sandbox.Rules{Network: cfg.Network, ABI: cfg.ABI, Isolate: cfg.Isolate}, cacheDir: cfg.CacheDir, tempDir: tmp, reaper: r}
	if s.exe == "" {
		s.exe = "/proc/self/exe"
	}
	s.rules.Writable = writableRoots(dir, tmp, cfg.Writable)
	return s
}

// Close stops the spawner, which kills what its commands still run. A
// command started later goes through the one-shot helper.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	s.awaitSettled()
	s.mu.Lock()
	sp := s.sp
	s.sp, s.tried = nil, true
	s.mu.Unlock()
	if sp == nil {
		return nil
	}
	err := sp.Close()
	s.reaper.reaped(sp.Pid())
	return err
}

// prepare runs before the first command: it creates the cache directory
// of sandboxed commands (only now, so that a run that runs no command
// leaves nothing in HOME) and makes it writable; when it cannot be made
// the commands cache in the temporary directory.
func (s *Sandbox) prepare() {
	s.once.Do(func() {
		switch {
		case s.cacheDir != "" && os.MkdirAll(s.cacheDir, 0o700) == nil:
			s.cache = s.cacheDir
			s.rules.Writable = writableRoots(s.rules.Writable[0], "", append(s.rules.Writable, s.cacheDir))
		case s.tempDir != "":
			s.cache = filepath.Join(s.tempDir, "cache")
		}
	})
}

// commandEnv returns env with the caches pointed where sandboxed
// commands keep them (see cacheEnv); env itself when the sandbox is nil.
func (s *Sandbox) commandEnv(env []string) []string {
	if s == nil {
		return env
	}
	s.prepare()
	if s.cache == "" {
		return env
	}
	return cacheEnv(env, s.rules.Writable, s.cache)
}

// spawner returns the run's spawner, starting it at the first call; nil
// when it cannot be had.
func (s *Sandbox) spawner() *sandbox.Spawner {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.tried {
		s.tried = true
		// The spawner's start-up maps nearly the whole program (every
		// package's initialisation: 13 MB resident) while this process
		// still holds what its own start-up and first turn mapped; both
		// at once were the run's peak. This process's program pages go
		// (they stay in the page cache; it faults back what it uses
		// next, once per run) while the spawner starts: the trim (about
		// a millisecond) is done long before the spawner's start-up
		// (several) reaches its peak, and no longer delays the first
		// command.
		trimmed := make(chan struct{})
		go func() {
			defer close(trimmed)
			sandbox.TrimResident()
		}()
		s.sp, _ = sandbox.StartSpawner(s.exe, s.rules, s.reaper.start)
		<-trimmed
	}
	return s.sp
}

// lost forgets the spawner sp, which has gone away: later commands go
// through the one-shot helper.
func (s *Sandbox) lost(sp *sandbox.Spawner) {
	s.mu.Lock()
	if s.sp == sp {
		s.sp = nil
	}
	s.mu.Unlock()
	_ = sp.Close()
	s.reaper.reaped(sp.Pid())
}

// start starts cmd (cmd.Path, cmd.Args, cmd.Env, cmd.Dir and its standard
// files) confined, as the leader of its own process group: through the
// spawner, or the one-shot helper. A nil sandbox starts it unconfined.
func (s *Sandbox) start(cmd *exec.Cmd, r *Reaper) (*procGroup, error) {
	if s == nil {
		return startGroup(cmd, r)
	}
	s.awaitSettled()
	s.prepare()
	if sp := s.spawner(); sp != nil {
		g, ok, err := spawnGroup(sp, cmd, r)
		if !errors.Is(err, sandbox.ErrSpawnerClosed) {
			if ok {
				return g, err
			}
		} else {
			s.lost(sp) // the helper below starts this command and the next ones
		}
	}
	s.wrap(cmd)
	return startGroup(cmd, r)
}

// Wrap makes cmd run confined when it is started: its program becomes
// the one-shot helper ([sandbox.HelperCommand]), which applies the run's
// rules and execs cmd.Path with cmd.Args, and its environment (cmd.Env,
// which must be set) gets the sandbox's cache directories. It is meant for
// long-lived commands started once, such as a stdio MCP server, for which
// one start-up of rubichan does not matter; cmd keeps what [exec.Cmd]
// gives (pipes, Wait, Process), and the caller starts it in the process
// group it wants. A nil Sandbox leaves cmd as it is.
func (s *Sandbox) Wrap(cmd *exec.Cmd) {
	if s == nil {
		return
	}
	cmd.Env = s.commandEnv(cmd.Env)
	s.wrap(cmd)
}

// WrapFor is [Sandbox.Wrap] with more allowed to this command alone:
// network connections when network is set, and writes in the directories
// extra (absolute, or relative to the workspace) besides the sandbox's
// writable roots. A person's configuration gives them to a server that
// needs them (npx fetches packages and caches them in ~/.npm).
func (s *Sandbox) WrapFor(cmd *exec.Cmd, network bool, extra []string) {
	if s == nil {
		return
	}
	cmd.Env = s.commandEnv(cmd.Env)
	rules := s.rules
	rules.Network = rules.Network || network
	if len(extra) > 0 {
		rules.Writable = writableRoots(s.rules.Writable[0], "", append(slices.Clone(s.rules.Writable), extra...))
	}
	cmd.Args = append([]string{"rubichan"}, rules.Argv(cmd.Path, cmd.Args)...)
	cmd.Path = s.exe
	cmd.SysProcAttr = rules.Namespaces(cmd.SysProcAttr)
}

// wrap points cmd at the one-shot helper. argv[0] is "rubichan", which a
// test binary standing in for rubichan dispatches on.
func (s *Sandbox) wrap(cmd *exec.Cmd) {
	s.prepare()
	cmd.Args = append([]string{"rubichan"}, s.rules.Argv(cmd.Path, cmd.Args)...)
	cmd.Path = s.exe
	cmd.SysProcAttr = s.rules.Namespaces(cmd.SysProcAttr)
}

// writableRoots lists the workspace, tmp and extra (relative ones taken
// from dir), each once, with symlinks resolved: Landlock judges the file a
// path reaches, and a rule on a symlink would name its target anyway.
func writableRoots(dir, tmp string, extra []string) []string {
	var out []string
	for _, d := range append([]string{dir, tmp}, extra...) {
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		d = realDir(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// cacheEnv points the cache directories of a sandboxed command's
// environment into cache when they are not already in a writable root:
// XDG_CACHE_HOME (which also holds Go's build cache when GOCACHE is unset)
// and GOCACHE. A command can then build and test, and what it caches
// cannot poison the caches that builds outside the sandbox use. Naming a
// cache directory in [BashSandbox.Writable] keeps it (and trusts it with
// what the commands write).
func cacheEnv(env, writable []string, cache string) []string {
	within := func(p string) bool {
		return filepath.IsAbs(p) && slices.ContainsFunc(writable, func(w string) bool {
			return pathWithin(realDir(p), w)
		})
	}
	set := map[string]string{}
	if v := lookupEnv(env, "XDG_CACHE_HOME"); !within(v) {
		set["XDG_CACHE_HOME"] = cache
	}
	if v := lookupEnv(env, "GOCACHE"); v != "" && v != "off" && !within(v) {
		set["GOCACHE"] = filepath.Join(cache, "go-build")
	}
	return setEnv(env, set)
}

// lookupEnv returns the value of the last name= entry of env.
func lookupEnv(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, name+"="); ok {
			v = s
		}
	}
	return v
}

// setEnv returns env with the names of set replaced or added.
func setEnv(env []string, set map[string]string) []string {
	if len(set) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; !ok {
			out = append(out, kv)
		}
	}
	for _, name := range sortedNames(set) {
		out = append(out, name+"="+set[name])
	}
	return out
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// The patterns of sandboxHint, compiled at their first use rather than at
// every start of the program.
var (
	netDenied = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(connect|bind|dial|socket|network)[^\n]*permission denied|permission denied[^\n]*(connect|bind|socket)|couldn't connect to server|failed to connect to|network is unreachable|could not resolve host|temporary failure in name resolution`)
	})
	writeDenied = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)permission denied|read-only file system|operation not permitted`)
	})
)

// sandboxHint returns the one-line note a failed sandboxed command's
// result gets when its output looks like the sandbox refused something,
// or "".
func (s *Sandbox) hint(out string) string {
	if s == nil {
		return ""
	}
	if !s.rules.Network && netDenied().MatchString(out) {
		return "[sandbox: network connections are blocked (network = false), UDP and DNS included; a refused connection, an unreachable network or a name that does not resolve above is the sandbox, not the server]"
	}
	if writeDenied().MatchString(out) {
		return "[sandbox: writes outside the workspace and $TMPDIR are blocked, and so are chmod, chown, touch and xattrs there; a \"Permission denied\" or \"Read-only file system\" above on such a path is the sandbox]"
	}
	return ""
}

// settleLater settles g ([procGroup.settle]) after its status has been
// read: for a command the spawner started, on a goroutine of its own —
// the spawner's kill of what the command left in its group and its reap
// are a round trip to the spawner (about 0.1 ms a call) that the model's
// answer need not wait for. The next command this sandbox starts, and
// Close, wait until it is done, so no command starts beside what an
// earlier one left behind. Any other group settles now.
func (s *Sandbox) settleLater(g *procGroup) {
	if s == nil || g.sp == nil {
		g.settle()
		return
	}
	s.later(g.settle)
}

// later runs settle on a goroutine of its own, which awaitSettled waits
// for.
func (s *Sandbox) later(settle func()) {
	done := make(chan struct{})
	s.settleMu.Lock()
	s.settling = append(s.settling, done)
	s.settleMu.Unlock()
	go func() {
		defer close(done)
		settle()
	}()
}

// awaitSettled waits until every command given to settleLater so far has
// settled.
func (s *Sandbox) awaitSettled() {
	s.settleMu.Lock()
	pending := slices.Clone(s.settling)
	s.settleMu.Unlock()
	for _, done := range pending {
		<-done
	}
	s.settleMu.Lock()
	s.settling = slices.DeleteFunc(s.settling, func(done chan struct{}) bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	s.settleMu.Unlock()
}
