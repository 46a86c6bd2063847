package run

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/structured"
	"github.com/urfave/cli/v2"
)

// execConfig is the parsed flags of exec and chat, with the configuration
// and the provider they resolve to (see loadSettings). The run takes them
// as [harness.Settings] ([execConfig.settings]) and [sink.Options]
// ([execConfig.sinkOptions]); nothing changes it once parsed.
type execConfig struct {
	// Resolved and Settings come from the configuration files, RUBICHAN_*
	// variables and flags (see loadSettings). Resolved holds the API key,
	// which it never prints.
	Resolved config.ResolvedProvider
	Settings *config.Loaded

	// ResumeArgs are the flags a run resuming this one needs, as shell
	// words: the approve and deny lines of a deferred run repeat them.
	ResumeArgs []string

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
	MCP            harness.MCPChoice
	Skills         harness.SkillSettings // --skills, --no-skills

	NoSubqueries bool // --no-subqueries: no socket for `rubichan query`
	Subqueries   bool // --subqueries: the system prompt tells of them without a spill

	NoCompact bool // --no-compact

	Output string // "text", "final", "json" or "stream-json"
	// LastMessage is -o/--output-last-message: the final message also goes
	// to this file.
	LastMessage string
	// JSONSchema is --json-schema, compiled; nil without one.
	JSONSchema        *structured.Schema
	JSONSchemaRetries int  // --json-schema-retries
	IncludeThinking   bool // stream-json: thinking events too
	Quiet             bool
	Verbose           bool
	Color             string // "auto", "always" or "never"

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
	github *sink.GitHub
}

// configFromContext reads the exec flags and validates them. Every problem
// is a usage error (exit 2).
func configFromContext(c *cli.Context, env environment) (execConfig, error) {
	cfg := givenExecFlags(c)
	if cfg.LearnPolicy != "" && cfg.NoSession {
		return cfg, exit.Usagef("--learn-policy needs the run's session to learn from; it cannot be used with --no-session")
	}
	size, err := config.ParseByteSize(c.String("patch-max-size"))
	if err != nil || size <= 0 {
		return cfg, exit.Usagef("--patch-max-size: want a size such as 1GB or 500MB, got %q", c.String("patch-max-size"))
	}
	cfg.PatchMaxSize = int64(size)
	if cfg.Patch != "" && cfg.Patch != "-" {
		if cfg.Patch, err = filepath.Abs(cfg.Patch); err != nil {
			return cfg, exit.Usagef("--patch: %v", err)
		}
	}
	if err := cfg.loadJSONSchema(c); err != nil {
		return cfg, err
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
	if err := cfg.applyTask(c, env); err != nil {
		return cfg, err
	}
	if err := cfg.loadCassette(c.String("replay-mode")); err != nil {
		return cfg, err
	}
	if err := cfg.loadSettings(c, env); err != nil {
		return cfg, exit.ConfigError{Err: err}
	}
	if err := cfg.resumedJSONSchema(env); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// givenExecFlags reads the exec flags that are taken as given.
func givenExecFlags(c *cli.Context) execConfig {
	return execConfig{
		PolicyFile:      c.String("policy"),
		Allow:           ruleFlag(c, "allow"),
		Deny:            ruleFlag(c, "deny"),
		ResumeArgs:      resumeArgs(c),
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
		LastMessage:     c.String("output-last-message"),
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
}

func (cfg *execConfig) validate() error {
	switch {
	case cfg.OnAsk != "" && cfg.OnAsk != "deny" && cfg.OnAsk != "abort" && cfg.OnAsk != "defer":
		return exit.Usagef("--on-ask must be deny, abort or defer, not %q", cfg.OnAsk)
	case cfg.Output != outputText && cfg.Output != outputFinal && cfg.Output != outputJSON && cfg.Output != outputStreamJSON:
		return exit.Usagef("--output must be text, final, json or stream-json, not %q", cfg.Output)
	case cfg.Color != "auto" && cfg.Color != "always" && cfg.Color != "never":
		return exit.Usagef("--color must be auto, always or never, not %q", cfg.Color)
	case cfg.Quiet && cfg.Verbose:
		return exit.Usagef("--quiet and --verbose cannot be used together")
	case cfg.Patch == "-" && (cfg.Output == outputJSON || cfg.Output == outputStreamJSON):
		return exit.Usagef("--patch - writes the patch on stdout; with --output %s write it to a file", cfg.Output)
	case cfg.Record != "" && cfg.Replay != "":
		return exit.Usagef("--record and --replay cannot be used together")
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
		return exit.Usagef("workspace %s: %v", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return exit.Usagef("workspace: %v", err)
	}
	if !fi.IsDir() {
		return exit.Usagef("workspace %s is not a directory", abs)
	}
	cfg.Dir = abs
	return nil
}

// String describes the configuration without its key, for debugging.
func (cfg execConfig) String() string {
	return fmt.Sprintf("provider=%s model=%s base=%s dir=%s", cfg.Resolved.Name, cfg.Resolved.Model, cfg.Resolved.BaseURL, cfg.Dir)
}

// sinkOptions are how the run's events are rendered, from its flags: js
// is the JSON sink made before the arguments were parsed (nil: text), stop
// learns a failed write on stdout.
func (cfg execConfig) sinkOptions(js *sink.JSON, env environment, stop func(error)) sink.Options {
	return sink.Options{JSON: js, Final: cfg.Output == outputFinal, Structured: cfg.JSONSchema != nil, Thinking: cfg.IncludeThinking,
		Quiet: cfg.Quiet, Verbose: cfg.Verbose, Color: cfg.Color, LookupEnv: env.LookupEnv,
		TextToStderr: cfg.Patch == "-", GitHub: cfg.github, Redact: agent.NewRedactor(cfg.settings().Secrets(env.Env, cfg.Dir)), Stop: stop,
		AllowAll: harness.AllowAll(cfg.Settings), LineMode: cfg.chat}
}

// skillSettings reads --skills and --no-skills.
func skillSettings(c *cli.Context) harness.SkillSettings {
	return harness.SkillSettings{Dirs: c.StringSlice("skills"), Off: c.Bool("no-skills")}
}
