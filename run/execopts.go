package run

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/config"
	"github.com/urfave/cli/v2"
)

// execConfig is everything one exec run needs, resolved from flags and
// environment variables.
type execConfig struct {
	Provider string // the preset or [providers] name
	Model    string
	BaseURL  string
	APIKey   string // never printed
	KeyVar   string // the environment variable the key came from

	// Resolved and Settings come from the configuration files, RUBICHAN_*
	// variables and flags (see loadSettings); the fields above and the
	// limits below are copied from them.
	Resolved config.ResolvedProvider
	Settings *config.Loaded

	PolicyFile     string
	Allow, Deny    []string
	TrustWorkspace bool
	OnAsk          string // "", "deny" or "abort"

	Dir            string // absolute workspace root
	NoStdin        bool
	PromptFile     string
	PromptArgs     []string
	SystemPrompt   string
	AppendSystem   string
	NoContextFiles bool
	PassEnv        []string // variable names bash gets although they look secret

	MaxTurns     int
	Timeout      time.Duration // 0: none
	MaxToolCalls int           // 0: none

	CompactAt float64 // compact_at: the share of the usable window past which to compact; 0: the default
	NoCompact bool    // --no-compact

	Output          string // "text", "final", "json" or "stream-json"
	IncludeThinking bool   // stream-json: thinking events too
	Quiet           bool
	Verbose         bool
	Color           string // "auto", "always" or "never"

	SessionDir string // --session-dir; "": the XDG state directory
	NoSession  bool

	Record     string             // --record: cassette file to write
	Replay     string             // --replay: cassette file to serve
	ReplayMode cassette.Mode      // --replay-mode
	cassette   *cassette.Cassette // loaded from Replay
}

// configFromContext reads the exec flags and validates them. Every problem
// is a usage error (exit 2).
func configFromContext(c *cli.Context, env environment) (execConfig, error) {
	cfg := execConfig{
		PolicyFile:      c.String("policy"),
		Allow:           c.StringSlice("allow"),
		Deny:            c.StringSlice("deny"),
		TrustWorkspace:  c.Bool("trust-workspace"),
		OnAsk:           c.String("on-ask"),
		Dir:             c.String("cwd"),
		NoStdin:         c.Bool("no-stdin"),
		PromptFile:      c.String("prompt-file"),
		PromptArgs:      c.Args().Slice(),
		SystemPrompt:    c.String("system-prompt"),
		AppendSystem:    c.String("append-system-prompt"),
		NoContextFiles:  c.Bool("no-context-files"),
		PassEnv:         c.StringSlice("pass-env"),
		Output:          c.String("output"),
		IncludeThinking: c.Bool("include-thinking"),
		Quiet:           c.Bool("quiet"),
		Verbose:         c.Bool("verbose"),
		Color:           c.String("color"),
		SessionDir:      c.String("session-dir"),
		NoSession:       c.Bool("no-session"),
		Record:          c.String("record"),
		Replay:          c.String("replay"),
		NoCompact:       c.Bool("no-compact"),
	}
	if err := cfg.validate(); err != nil {
		return cfg, err
	}
	if err := cfg.resolveDir(); err != nil {
		return cfg, err
	}
	if err := cfg.loadCassette(c.String("replay-mode")); err != nil {
		return cfg, err
	}
	if err := cfg.loadSettings(c, env); err != nil {
		return cfg, settingsError{err}
	}
	return cfg, nil
}

func (cfg *execConfig) validate() error {
	switch {
	case cfg.OnAsk != "" && cfg.OnAsk != "deny" && cfg.OnAsk != "abort":
		return usagef("--on-ask must be deny or abort, not %q", cfg.OnAsk)
	case cfg.Output != outputText && cfg.Output != outputFinal && cfg.Output != outputJSON && cfg.Output != outputStreamJSON:
		return usagef("--output must be text, final, json or stream-json, not %q", cfg.Output)
	case cfg.Color != "auto" && cfg.Color != "always" && cfg.Color != "never":
		return usagef("--color must be auto, always or never, not %q", cfg.Color)
	case cfg.Quiet && cfg.Verbose:
		return usagef("--quiet and --verbose cannot be used together")
	case cfg.Record != "" && cfg.Replay != "":
		return usagef("--record and --replay cannot be used together")
	}

	return nil
}

// resolveDir makes the workspace root absolute and checks it is a directory.
func (cfg *execConfig) resolveDir() error {
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return usagef("workspace %s: %v", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return usagef("workspace: %v", err)
	}
	if !fi.IsDir() {
		return usagef("workspace %s is not a directory", abs)
	}
	cfg.Dir = abs
	return nil
}

// String describes the configuration without its key, for debugging.
func (cfg execConfig) String() string {
	return fmt.Sprintf("provider=%s model=%s base=%s dir=%s", cfg.Provider, cfg.Model, cfg.BaseURL, cfg.Dir)
}
