package run

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/urfave/cli/v2"
)

// configFlags are the flags that set configuration keys, shared by exec and
// `config show`. They carry no EnvVars: [config.Load] reads the RUBICHAN_*
// variables itself, so that a variable ranks below flags and above the
// workspace file, and `config show` can say which one set a value.
func configFlags() []cli.Flag {
	const (
		model  = "Model"
		limits = "Limits"
		input  = "Input"
		verify = "Verify"
		shell  = "Sandbox"
	)
	return []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "read this config `FILE` after the user file [$RUBICHAN_CONFIG]", Category: model, TakesFile: true},
		&cli.StringFlag{Name: "provider", Usage: "provider `NAME`: anthropic, openai, openrouter, groq, deepseek, gemini, ollama or a [providers.NAME] entry (default: the configured one, else the first whose key variable is set) [$RUBICHAN_PROVIDER]", Category: model},
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME` (default: the provider's default model) [$RUBICHAN_MODEL]", Category: model},
		&cli.StringFlag{Name: "base-url", Usage: "API base `URL`, replacing the provider's [$RUBICHAN_BASE_URL]", Category: model},
		&cli.StringFlag{Name: "max-cost", Usage: "stop (exit 4) before the spend in `USD` would pass this; 0 for none [$RUBICHAN_MAX_COST]", Category: limits},
		&cli.StringFlag{Name: "max-tokens-total", Usage: "stop (exit 4) before the tokens used would pass `N`; 0 for none [$RUBICHAN_MAX_TOKENS_TOTAL]", Category: limits},
		&cli.StringFlag{Name: "max-turns", Usage: "stop (exit 4) after `N` model requests (default: 50) [$RUBICHAN_MAX_TURNS]", Category: limits},
		&cli.StringFlag{Name: "timeout", Usage: "stop (exit 4) after this wall-clock `DURATION`, 0 for none (default: 30m) [$RUBICHAN_TIMEOUT]", Category: limits},
		&cli.StringFlag{Name: "max-tool-calls", Usage: "stop (exit 4) after `N` tool calls; 0 for none [$RUBICHAN_MAX_TOOL_CALLS]", Category: limits},
		&cli.StringFlag{Name: "parallel-tool-calls", Usage: "run at most `N` consecutive read-only tool calls of one model message at once; 1: one after another (default: 8) [$RUBICHAN_PARALLEL_TOOL_CALLS]", Category: limits},
		&cli.StringFlag{Name: "stream-idle-timeout", Usage: "cut and retry a model request that makes no progress for this `DURATION` (pings do not count); 0 for none (default: 5m) [$RUBICHAN_STREAM_IDLE_TIMEOUT]", Category: limits},
		&cli.StringFlag{Name: "stream-header-timeout", Usage: "cut and retry a model request whose response headers have not come within this `DURATION`; 0 for none (default: 1m) [$RUBICHAN_STREAM_HEADER_TIMEOUT]", Category: limits},
		&cli.StringFlag{Name: "max-response-size", Usage: "fail (exit 5) when one model answer's text, thinking and tool input pass `SIZE` (default: 32MB) [$RUBICHAN_MAX_RESPONSE_SIZE]", Category: limits},
		&cli.StringFlag{Name: "stdin-max", Usage: "stop (exit 2) when stdin passes `SIZE`; never more than the spill directory's free space less a margin (default: 10GB) [$RUBICHAN_STDIN_MAX]", Category: input},
		&cli.StringFlag{Name: "sandbox", Usage: "OS sandbox of shell commands: `MODE` is auto (what the kernel supports), required (exit 2 when the kernel cannot) or off (default: auto) [$RUBICHAN_SANDBOX]", Category: shell},
		&cli.BoolFlag{Name: "network", Usage: "let shell commands open network connections (the sandbox blocks TCP otherwise) [$RUBICHAN_NETWORK]", Category: shell},
		&cli.BoolFlag{Name: "allow-all", Usage: "allow every tool call inside the OS sandbox: for disposable environments [$RUBICHAN_ALLOW_ALL]", Category: shell},
		&cli.StringFlag{Name: "compact-at", Usage: "compact the conversation when a request would pass this `RATIO` of the context window minus the output reserve (default: 0.8) [$RUBICHAN_COMPACT_AT]", Category: "Context window"},
		&cli.StringFlag{Name: "verify", Usage: "after the model's final answer run `CMD` in the workspace (outside the policy); until it exits 0 the model is shown its output and goes on [$RUBICHAN_VERIFY]", Category: verify},
		&cli.StringFlag{Name: "verify-attempts", Usage: "end the run with exit 6 after `N` failed checks (default: 3) [$RUBICHAN_VERIFY_ATTEMPTS]", Category: verify},
		&cli.StringFlag{Name: "verify-timeout", Usage: "stop one check after `DURATION` (default: 10m) [$RUBICHAN_VERIFY_TIMEOUT]", Category: verify},
		&cli.StringFlag{Name: "sub-model", Usage: "model `NAME` of sub-queries (`rubichan query` in the run's commands; default: the provider's cheaper model, see docs/subqueries.md) [$RUBICHAN_SUB_MODEL]", Category: "Sub-queries"},
		&cli.StringFlag{Name: "query-concurrency", Usage: "at most `N` sub-queries in flight across the run (default: 4) [$RUBICHAN_QUERY_CONCURRENCY]", Category: "Sub-queries"},
		&cli.StringFlag{Name: "max-queries", Usage: "refuse sub-queries past `N` and stop (exit 4); 0 for none (default: 500) [$RUBICHAN_MAX_QUERIES]", Category: "Sub-queries"},
		&cli.StringFlag{Name: "stdin-inline-max", Usage: "largest stdin (`SIZE`: B, KB, MB, GB) put into the prompt; more is spilled to a file (default: 256KB) [$RUBICHAN_STDIN_INLINE_MAX]", Category: input},
	}
}

// configFlagsNamed is the configuration flags of those names, for a
// command that reads only them (its help then lists only them).
func configFlagsNamed(names ...string) []cli.Flag {
	var fs []cli.Flag
	for _, f := range configFlags() {
		if slices.Contains(names, rawName(f)) {
			fs = append(fs, f)
		}
	}
	return fs
}

// configOptionsFromCLI collects the configuration flags set on the command
// line of c. workspace is the absolute workspace root; trusted says whether
// the workspace file may redirect the provider (line mode or
// --trust-workspace).
func configOptionsFromCLI(c *cli.Context, env environment, workspace string, trusted bool) config.Options {
	given := givenFlags(c)
	flags := map[string]string{}
	for _, name := range config.FlagNames() {
		if given[name] {
			flags[name] = fmt.Sprint(c.Value(name))
		}
	}
	home, _ := env.LookupEnv("HOME")
	return config.Options{
		LookupEnv:      env.LookupEnv,
		Home:           home,
		Workspace:      workspace,
		ConfigFile:     c.String("config"),
		Flags:          flags,
		TrustWorkspace: trusted,
	}
}

// givenFlags returns the names of the flags given on c's command line
// (or through their EnvVars), in one pass; urfave/cli marks every name of
// a flag given by one of them. (cli.Context.IsSet of a flag not given
// searches every flag's names with a regexp: asked of each configuration
// flag in turn, that was a tenth of the chat's start-up.)
func givenFlags(c *cli.Context) map[string]bool {
	given := map[string]bool{}
	for _, name := range c.LocalFlagNames() {
		given[name] = true
	}
	return given
}

// configCommand is `rubichan config show`.
func configCommand(env environment) *cli.Command {
	return &cli.Command{
		Name:            "config",
		Usage:           "inspect the configuration",
		HideHelpCommand: true,
		// Like `rubichan policy`: without a known subcommand there is
		// nothing to do, which is a usage error, not help on stdout.
		Action: requireSubcommand("config", "; try: rubichan config show"),
		Subcommands: []*cli.Command{{
			Name:      "show",
			Usage:     "print the effective configuration and where each value came from (API keys redacted)",
			UsageText: "rubichan config show [--json] [--all] [--trust-workspace] [-C DIR] [exec's model, limit and input flags]",
			Description: `Loads the configuration exactly as exec would in the same directory
(defaults < user file < --config < workspace file < RUBICHAN_* < flags, and
the workspace trust rule) and prints every value with where it came from.
API keys and credential headers are shown as "[redacted]".

Examples:
   rubichan config show
   rubichan config show --json | jq -r .provider.model
   rubichan config show --provider openai --max-cost 2 -C services/api
   rubichan config show --all      # with every built-in model price

Exit codes: 0 printed, 2 the configuration is invalid or names no usable
provider (what could be loaded is still printed).`,
			Flags: append(configFlags(),
				&cli.BoolFlag{Name: "json", Usage: "print JSON"},
				&cli.BoolFlag{Name: "all", Usage: "also list the built-in prices of models not in use"},
				&cli.BoolFlag{Name: "trust-workspace", Usage: "show what a run with --trust-workspace would use", EnvVars: envs("trust-workspace")},
				&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
			),
			Action: func(c *cli.Context) error {
				lc, err := loadCommandConfig(c, env, "config show")
				if err != nil {
					return err
				}
				note := noteTo(c.App.ErrWriter, "rubichan: ")
				for _, n := range lc.Notes {
					note(n)
				}
				rp, perr := harness.ResolveProvider(lc, env.LookupEnv)
				show := config.NewShow(lc, rp, perr, c.Bool("all"), agent.Shown)
				if c.Bool("json") {
					err = show.WriteJSON(sink.NewJSONShown(c.App.Writer))
				} else {
					err = show.WriteText(c.App.Writer, agent.Shown)
				}
				if err != nil {
					return err
				}
				return perr
			},
		}},
	}
}

// loadCommandConfig loads the configuration as exec would for a command
// that takes no arguments (`config show`, `sandbox check`): in the
// workspace of -C (default the current directory), under the trust rule of
// --trust-workspace.
func loadCommandConfig(c *cli.Context, env environment, name string) (*config.Loaded, error) {
	if c.NArg() > 0 {
		return nil, exit.Usagef("%s takes no arguments", name)
	}
	dir := c.String("cwd")
	if dir == "" {
		dir = "."
	}
	ws, err := filepath.Abs(dir)
	if err != nil {
		return nil, exit.Usagef("workspace %s: %v", dir, err)
	}
	return harness.LoadConfig(configOptionsFromCLI(c, env, ws, c.Bool("trust-workspace")))
}
