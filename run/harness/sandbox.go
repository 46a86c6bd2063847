package harness

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// ShellSettings returns the [shell] settings of lc; the defaults
// (sandbox auto, network off) when no configuration was loaded (nil).
func ShellSettings(lc *config.Loaded) config.Shell {
	if lc == nil {
		return config.Default().Shell
	}
	return lc.Shell
}

// AchieveSandbox returns what the sandbox achieves for sh on this kernel.
func AchieveSandbox(sh config.Shell, env Env) sandbox.State {
	mode, err := sandbox.ParseMode(sh.Sandbox)
	if err != nil {
		mode = sandbox.ModeAuto // the config has checked it already
	}
	st := sandbox.Achieve(mode, sh.Network, env.SandboxABI(), sandbox.Linux, env.SandboxNamespaces(mode))
	return st.UnderSeccomp(env.SandboxSeccomp())
}

// StartSandbox decides the run's sandbox before any request: a required
// sandbox this kernel cannot give is a configuration error (exit 2). The
// state goes to stderr with --verbose, and in auto mode whenever it falls
// short of confining writes, metadata outside the writable roots and the
// network it was asked to.
func StartSandbox(s Settings, env Env, notice func(string)) (sandbox.State, error) {
	st := AchieveSandbox(ShellSettings(s.Config), env)
	if err := st.Unmet(); err != nil {
		return st, exit.CodeError{Code: exit.Usage, Err: err}
	}
	short := st.Mode == sandbox.ModeAuto && st.Short()
	if s.Verbose || short {
		notice(st.String())
	}
	return st, nil
}

// AllowAll reports whether --allow-all is on (allow_all from a trusted
// source: the flag, RUBICHAN_ALLOW_ALL, a trusted file).
func AllowAll(lc *config.Loaded) bool { return lc != nil && lc.AllowAll }

// CheckAllowAll refuses to start a run with --allow-all (exit 2) when
// the OS sandbox is not active — it does not confine the commands'
// writes — unless the sandbox was turned off explicitly: allowing every
// call is meant for a disposable environment, inside the sandbox.
func CheckAllowAll(lc *config.Loaded, st sandbox.State) error {
	if !AllowAll(lc) || st.Filesystem || st.Mode == sandbox.ModeOff {
		return nil
	}
	return exit.CodeError{Code: exit.Usage, Err: fmt.Errorf("--allow-all allows every tool call inside the OS sandbox, "+
		"and the sandbox is not active here (%s); run where Landlock confines the commands, "+
		"or pass --sandbox off as well to allow every call unconfined", st)}
}

// SandboxConfig is the bash tool's sandbox for state st.
func SandboxConfig(st sandbox.State, sh config.Shell, env Env) toolkit.BashSandbox {
	if !st.Helper {
		return toolkit.BashSandbox{}
	}
	return toolkit.BashSandbox{Enabled: true, Network: sh.Network, ABI: st.ABI, Isolate: st.Isolated, Writable: sh.WritableRoots, CacheDir: SandboxCacheDir(env)}
}

// SandboxCacheDir is $XDG_CACHE_HOME/rubichan/sandbox (~/.cache/…),
// which the bash tool creates before its first command: the cache of sandboxed commands (Go's build cache
// among them), kept from run to run so that `go test` is not a cold build
// every time, and apart from the user's own caches, which sandboxed code
// could otherwise poison for builds outside the sandbox. "" when there is
// no such directory; commands then cache in the run's TMPDIR.
func SandboxCacheDir(env Env) string {
	base, _ := env.LookupEnv("XDG_CACHE_HOME")
	if !filepath.IsAbs(base) {
		home, _ := env.LookupEnv("HOME")
		if !filepath.IsAbs(home) {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "rubichan", "sandbox")
}

// RunTempDir creates the run's private temporary directory: the bash
// tool's TMPDIR, writable in the sandbox. The caller removes it.
func RunTempDir() (string, error) {
	return os.MkdirTemp("", "rubichan-run-")
}
