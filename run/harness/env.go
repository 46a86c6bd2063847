package harness

import (
	"os"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// Env is what a run reads from the process beyond its standard streams
// and arguments. Tests replace it; [ProcessEnv] is the real process.
type Env struct {
	// LookupEnv reads an environment variable.
	LookupEnv func(string) (string, bool)
	// Environ lists the environment as NAME=value, for the bash tool.
	Environ func() []string
	// LandlockABI probes the kernel's Landlock ABI (0: none); nil
	// probes the kernel. Tests simulate other kernels with it.
	LandlockABI func() int
	// Namespaces probes whether commands can have namespaces of their own
	// (nil: they can; see sandbox.ProbeNamespaces); nil probes the
	// system. Tests simulate a system that refuses them with it.
	Namespaces func() error
	// Seccomp probes whether the process runs under a seccomp filter
	// (see sandbox.ProbeSeccomp); nil probes the process.
	Seccomp func() bool
	// Now is the time the system prompt's date comes from; nil: the
	// clock. Tests set it to replay a cassette on another day.
	Now func() time.Time
	// Heartbeat is the first wait before the agent notes that the model
	// is silent; zero: [agent.DefaultHeartbeat]. Tests shorten it.
	Heartbeat time.Duration
}

// ProcessEnv is the real process's environment.
func ProcessEnv() Env {
	return Env{LookupEnv: os.LookupEnv, Environ: os.Environ, Now: time.Now}
}

// Today is the time whose date the system prompt shows.
func (env Env) Today() time.Time {
	if env.Now == nil {
		return time.Now()
	}
	return env.Now()
}

// HeartbeatFirst is the first wait of the run's heartbeat: the
// environment's, or [agent.DefaultHeartbeat].
func (env Env) HeartbeatFirst() time.Duration {
	if env.Heartbeat > 0 {
		return env.Heartbeat
	}
	return agent.DefaultHeartbeat
}

// SandboxABI is the kernel's Landlock ABI, from the environment's probe
// (tests simulate kernels with it) or the kernel itself.
func (env Env) SandboxABI() int {
	if env.LandlockABI != nil {
		return env.LandlockABI()
	}
	return sandbox.ProbeABI()
}

// SandboxNamespaces says whether commands can have namespaces of their
// own (nil) or why not, from the environment's probe or the system; it
// does not probe for a sandbox that is off.
func (env Env) SandboxNamespaces(mode sandbox.Mode) error {
	switch {
	case mode == sandbox.ModeOff:
		return nil
	case env.Namespaces != nil:
		return env.Namespaces()
	}
	return sandbox.ProbeNamespaces()
}

// SandboxSeccomp says whether the process runs under a seccomp filter,
// from the environment's probe or the process itself.
func (env Env) SandboxSeccomp() bool {
	if env.Seccomp != nil {
		return env.Seccomp()
	}
	return sandbox.ProbeSeccomp()
}
