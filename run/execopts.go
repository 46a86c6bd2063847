package run

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
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
	LearnPolicy    string // --learn-policy: write the policy learned from this run's session here
	Allow, Deny    []string
	TrustWorkspace bool
	OnAsk          string // "", "deny", "abort" or "defer"

	Dir            string // absolute workspace root
	NoStdin        bool
	PromptFile     string
	PromptArgs     []string
	SystemPrompt   string
	AppendSystem   string
	NoContextFiles bool
	PassEnv        []string // variable names bash gets although they look secret
	MCP            mcpChoice
	Skills         harness.SkillSettings // --skills, --no-skills

	MaxTurns     int
	Timeout      time.Duration // 0: none
	MaxToolCalls int           // 0: none
	Parallel     int           // read-only calls at once; 0: the engine's default

	NoSubqueries bool // --no-subqueries: no socket for `rubichan query`
	Subqueries   bool // --subqueries: the system prompt tells of them without a spill

	CompactAt float64 // compact_at: the share of the usable window past which to compact; 0: the default
	NoCompact bool    // --no-compact

	Output          string // "text", "final", "json" or "stream-json"
	IncludeThinking bool   // stream-json: thinking events too
	Quiet           bool
	Verbose         bool
	Color           string // "auto", "always" or "never"

	sessionFlags

	Record       string             // --record: cassette file to write
	Replay       string             // --replay: cassette file to serve
	ReplayMode   cassette.Mode      // --replay-mode
	cassette     *cassette.Cassette // loaded from Replay
	Patch        string             // --patch: a file, "-" for stdout, "" for none
	PatchMaxSize int64              // --patch-max-size: bound of the plain copy outside git

	chat bool // line mode: the approver keeps the person's session answers
	// github is the GitHub Actions reporter [runMain] made (see
	// [scanArgs]); nil when not under Actions or with --github=false.
	github *githubReporter
}

// verify is the [verify] configuration: --verify, its attempts and timeout.
func (cfg execConfig) verify() config.Verify {
	if cfg.Settings == nil {
		return config.Verify{}
	}
	return cfg.Settings.Verify
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
		Skills:          skillSettings(c),
		Output:          c.String("output"),
		IncludeThinking: c.Bool("include-thinking"),
		Quiet:           c.Bool("quiet"),
		Verbose:         c.Bool("verbose"),
		Color:           c.String("color"),
		sessionFlags: sessionFlags{
			SessionDir:  c.String("session-dir"),
			NoSession:   c.Bool("no-session"),
			SessionID:   c.String("session-id"),
			SessionFile: c.String("session-file"),
			Resume:      c.String("resume"),
			Continue:    c.Bool("continue"),
			Fork:        c.Bool("fork"),
			Approve:     c.StringSlice("approve"),
			DenyPending: c.Bool("deny-pending"),
		},
		Record:       c.String("record"),
		Replay:       c.String("replay"),
		NoCompact:    c.Bool("no-compact"),
		NoSubqueries: c.Bool("no-subqueries"),
		Subqueries:   c.Bool("subqueries"),
		Patch:        c.String("patch"),
		LearnPolicy:  c.String("learn-policy"),
	}
	if cfg.LearnPolicy != "" && cfg.NoSession {
		return cfg, usagef("--learn-policy needs the run's session to learn from; it cannot be used with --no-session")
	}
	size, err := config.ParseByteSize(c.String("patch-max-size"))
	if err != nil || size <= 0 {
		return cfg, usagef("--patch-max-size: want a size such as 1GB or 500MB, got %q", c.String("patch-max-size"))
	}
	cfg.PatchMaxSize = int64(size)
	if cfg.Patch != "" && cfg.Patch != "-" {
		if cfg.Patch, err = filepath.Abs(cfg.Patch); err != nil {
			return cfg, usagef("--patch: %v", err)
		}
	}
	if cfg.MCP, err = mcpChoiceFromCLI(c); err != nil {
		return cfg, err
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
		return cfg, settingsError{Err: err}
	}
	return cfg, nil
}

func (cfg *execConfig) validate() error {
	switch {
	case cfg.OnAsk != "" && cfg.OnAsk != "deny" && cfg.OnAsk != "abort" && cfg.OnAsk != "defer":
		return usagef("--on-ask must be deny, abort or defer, not %q", cfg.OnAsk)
	case cfg.Output != outputText && cfg.Output != outputFinal && cfg.Output != outputJSON && cfg.Output != outputStreamJSON:
		return usagef("--output must be text, final, json or stream-json, not %q", cfg.Output)
	case cfg.Color != "auto" && cfg.Color != "always" && cfg.Color != "never":
		return usagef("--color must be auto, always or never, not %q", cfg.Color)
	case cfg.Quiet && cfg.Verbose:
		return usagef("--quiet and --verbose cannot be used together")
	case cfg.Patch == "-" && (cfg.Output == outputJSON || cfg.Output == outputStreamJSON):
		return usagef("--patch - writes the patch on stdout; with --output %s write it to a file", cfg.Output)
	case cfg.Record != "" && cfg.Replay != "":
		return usagef("--record and --replay cannot be used together")
	}
	return cfg.sessionFlags.validate(cfg.OnAsk)
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

// sinkOptions are how the run's events are rendered, from its flags: js
// is the JSON sink made before the arguments were parsed (nil: text), stop
// learns a failed write on stdout.
func (cfg execConfig) sinkOptions(js *jsonSink, env environment, stop func(error)) sink.Options {
	return sink.Options{JSON: js, Final: cfg.Output == outputFinal, Thinking: cfg.IncludeThinking,
		Quiet: cfg.Quiet, Verbose: cfg.Verbose, Color: cfg.Color, LookupEnv: env.LookupEnv,
		TextToStderr: cfg.Patch == "-", GitHub: cfg.github, Redact: newRedactor(cfg.secrets(env)), Stop: stop,
		AllowAll: allowAll(cfg.Settings)}
}

// skillSettings reads --skills and --no-skills.
func skillSettings(c *cli.Context) harness.SkillSettings {
	return harness.SkillSettings{Dirs: c.StringSlice("skills"), Off: c.Bool("no-skills")}
}
