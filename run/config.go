package run

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"
)

// execConfig is everything one exec run needs, resolved from flags and
// environment variables.
type execConfig struct {
	Provider string // "anthropic" or "openai"
	Model    string
	BaseURL  string
	APIKey   string // never printed
	KeyVar   string // the environment variable the key came from

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

	MaxTurns     int
	Timeout      time.Duration // 0: none
	MaxToolCalls int           // 0: none

	Output  string // "text" or "final"
	Quiet   bool
	Verbose bool
	Color   string // "auto", "always" or "never"
}

// providerDefaults are the built-in settings of a provider.
type providerDefaults struct {
	keyVar, baseURLVar, baseURL, model string
}

var providers = map[string]providerDefaults{
	"anthropic": {keyVar: "ANTHROPIC_API_KEY", baseURLVar: "ANTHROPIC_BASE_URL", baseURL: "https://api.anthropic.com", model: "claude-sonnet-4-5"},
	"openai":    {keyVar: "OPENAI_API_KEY", baseURLVar: "OPENAI_BASE_URL", baseURL: "https://api.openai.com/v1", model: "gpt-4.1"},
}

// configFromContext reads the exec flags and validates them. Every problem
// is a usage error (exit 2).
func configFromContext(c *cli.Context, env environment) (execConfig, error) {
	cfg := execConfig{
		Provider:       c.String("provider"),
		Model:          c.String("model"),
		BaseURL:        c.String("base-url"),
		PolicyFile:     c.String("policy"),
		Allow:          c.StringSlice("allow"),
		Deny:           c.StringSlice("deny"),
		TrustWorkspace: c.Bool("trust-workspace"),
		OnAsk:          c.String("on-ask"),
		Dir:            c.String("cwd"),
		NoStdin:        c.Bool("no-stdin"),
		PromptFile:     c.String("prompt-file"),
		PromptArgs:     c.Args().Slice(),
		SystemPrompt:   c.String("system-prompt"),
		AppendSystem:   c.String("append-system-prompt"),
		NoContextFiles: c.Bool("no-context-files"),
		MaxTurns:       c.Int("max-turns"),
		Timeout:        c.Duration("timeout"),
		MaxToolCalls:   c.Int("max-tool-calls"),
		Output:         c.String("output"),
		Quiet:          c.Bool("quiet"),
		Verbose:        c.Bool("verbose"),
		Color:          c.String("color"),
	}
	if err := cfg.validate(); err != nil {
		return cfg, err
	}
	if err := cfg.resolveProvider(env); err != nil {
		return cfg, err
	}
	if err := cfg.resolveDir(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func (cfg *execConfig) validate() error {
	switch {
	case cfg.OnAsk != "" && cfg.OnAsk != "deny" && cfg.OnAsk != "abort":
		return usagef("--on-ask must be deny or abort, not %q", cfg.OnAsk)
	case cfg.MaxTurns < 1:
		return usagef("--max-turns must be at least 1, not %d", cfg.MaxTurns)
	case cfg.Timeout < 0:
		return usagef("--timeout must not be negative")
	case cfg.MaxToolCalls < 0:
		return usagef("--max-tool-calls must not be negative")
	case cfg.Output != "text" && cfg.Output != "final":
		return usagef("--output must be text or final, not %q", cfg.Output)
	case cfg.Color != "auto" && cfg.Color != "always" && cfg.Color != "never":
		return usagef("--color must be auto, always or never, not %q", cfg.Color)
	case cfg.Quiet && cfg.Verbose:
		return usagef("--quiet and --verbose cannot be used together")
	}
	return nil
}

// resolveProvider fills the model, base URL and key from the provider's
// defaults and environment variables. A missing key names its variable.
func (cfg *execConfig) resolveProvider(env environment) error {
	p, ok := providers[cfg.Provider]
	if !ok {
		return usagef("--provider must be anthropic or openai, not %q", cfg.Provider)
	}
	if cfg.Model == "" {
		cfg.Model = p.model
	}
	if cfg.BaseURL == "" {
		if v, ok := env.lookupEnv(p.baseURLVar); ok && v != "" {
			cfg.BaseURL = v
		} else {
			cfg.BaseURL = p.baseURL
		}
	}
	cfg.KeyVar = p.keyVar
	key, ok := env.lookupEnv(p.keyVar)
	if !ok || key == "" {
		return usagef("no API key: set %s for provider %s", p.keyVar, cfg.Provider)
	}
	cfg.APIKey = key
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
