package run

import (
	"context"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/doctor"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/toolkit/mcp"
	"github.com/urfave/cli/v2"
)

const doctorDescription = `Checks the setup a run would use, before a paid run starts: the config
files read and what they set; the provider, model and base URL; the API key
(present or not, never printed); whether the provider answers (one cheap
request, 5 s at most; --offline skips it); the policy and its self-tests; the
session directory; git; terminal and color detection; the sandbox; the MCP
servers (each started, reported ready or not, and stopped); under
GitHub Actions, the job summary file. Each problem comes with its fix.

Examples:
   rubichan doctor
   rubichan doctor --offline --policy ci.toml
   rubichan doctor --json | jq -r '.checks[] | select(.status=="problem") | .fix'

Exit codes: 0 no problem found, 1 a problem (each printed with its fix),
2 a bad flag.`

// doctorCommand is `rubichan doctor`.
func doctorCommand(env environment) *cli.Command {
	flags := append(append(policyFlags(""), skillFlags("")...), configFlags()...)
	flags = append(flags, mcpFlags("")...)
	flags = append(flags,
		&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
		&cli.StringFlag{Name: "session-dir", Usage: "check this session `DIR` instead of the default", EnvVars: envs("session-dir"), TakesFile: true},
		&cli.BoolFlag{Name: "offline", Usage: "do not contact the provider"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
	)
	return &cli.Command{
		Name:        "doctor",
		Usage:       "check the configuration, key, provider, policy and environment a run would use",
		UsageText:   "rubichan doctor [--json] [--offline] [-C DIR] [--mcp-config FILE] [--no-mcp] [exec's policy, model, limit and session flags]",
		Description: doctorDescription,
		Flags:       flags,
		Action:      func(c *cli.Context) error { return runDoctor(c, env) },
	}
}

// runDoctor reads the command line into [doctor.Options] and runs the
// checks.
func runDoctor(c *cli.Context, env environment) error {
	if c.NArg() > 0 {
		return exit.Usagef("doctor takes no arguments")
	}
	lc, lcErr := loadCommandConfig(c, env, "doctor")
	mcpCh, err := mcpChoiceFromCLI(c)
	if err != nil {
		return err
	}
	return doctor.Run(c.Context, doctor.Options{
		Config: lc, ConfigErr: lcErr, Env: env.Env, Dir: c.String("cwd"),
		Policy: harness.PolicySource{
			Dir: c.String("cwd"), File: c.String("policy"), Allow: ruleFlag(c, "allow"), Deny: ruleFlag(c, "deny"),
			TrustWorkspace: c.Bool("trust-workspace"), Headless: true,
		},
		TrustWorkspace: c.Bool("trust-workspace"),
		MCP:            harness.MCPChoice(mcpCh),
		Skills:         skillSettings(c),
		SessionDir:     c.String("session-dir"),
		Offline:        c.Bool("offline"),
		JSON:           c.Bool("json"),
		Stdout:         c.App.Writer,
		Stderr:         c.App.ErrWriter,
		ProbeMCP:       doctorProbeMCP(env, lc),
	})
}

// doctorProbeMCP is how the doctor starts the MCP servers: as a run
// would ([harness.ProbeMCP]), and stopped at once.
func doctorProbeMCP(env environment, lc *config.Loaded) func(context.Context, []mcp.ServerConfig, string) ([]mcp.Status, error) {
	return func(ctx context.Context, servers []mcp.ServerConfig, dir string) ([]mcp.Status, error) {
		// the sandbox step reports the sandbox
		return harness.ProbeMCP(ctx, harness.Settings{Config: lc}, env.Env, servers, dir, func(string) {})
	}
}
