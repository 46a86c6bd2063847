package toolkit

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

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
	// Writable are directories writable besides the workspace and
	// [BashConfig.TempDir]: absolute, or relative to the workspace.
	Writable []string
	// CacheDir, when set, is a writable directory that only sandboxed
	// commands use as their cache (XDG_CACHE_HOME, GOCACHE), kept from
	// run to run, created before the first command; empty (or one that
	// cannot be made) puts their caches in [BashConfig.TempDir].
	CacheDir string
}

// bashSandbox is the sandbox of a [Bash]: the helper and its rules.
type bashSandbox struct {
	exe   string
	rules sandbox.Rules
}

// newBashSandbox resolves cfg for the workspace dir and temporary
// directory tmp; nil when the sandbox is not enabled.
func newBashSandbox(cfg BashSandbox, dir, tmp string) *bashSandbox {
	if !cfg.Enabled {
		return nil
	}
	s := &bashSandbox{exe: cfg.Exe, rules: sandbox.Rules{Network: cfg.Network, ABI: cfg.ABI}}
	if s.exe == "" {
		s.exe = "/proc/self/exe"
	}
	s.rules.Writable = writableRoots(dir, tmp, cfg.Writable)
	return s
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

// argv returns the program and arguments that run the shell command
// through the helper. argv[0] is "rubichan", which a test binary standing
// in for rubichan dispatches on.
func (s *bashSandbox) argv(shell, command string) (string, []string) {
	return s.exe, append([]string{"rubichan"}, s.rules.Argv(shell, []string{shell, "-c", command})...)
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

var (
	netDenied   = regexp.MustCompile(`(?i)(connect|bind|dial|socket|network)[^\n]*permission denied|permission denied[^\n]*(connect|bind|socket)|couldn't connect to server|failed to connect to`)
	writeDenied = regexp.MustCompile(`(?i)permission denied|read-only file system|operation not permitted`)
)

// sandboxHint returns the one-line note a failed sandboxed command's
// result gets when its output looks like the sandbox refused something,
// or "".
func (s *bashSandbox) hint(out string) string {
	if s == nil {
		return ""
	}
	if !s.rules.Network && netDenied.MatchString(out) {
		return "[sandbox: network connections are blocked (network = false); a refused connection above is the sandbox, not the server]"
	}
	if writeDenied.MatchString(out) {
		return "[sandbox: writes outside the workspace and $TMPDIR are blocked; a \"Permission denied\" above on such a path is the sandbox]"
	}
	return ""
}
