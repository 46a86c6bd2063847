package run

import (
	"fmt"
	"io"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/linemode"
	"github.com/urfave/cli/v2"
)

// version is the program version, set at build time with
// -ldflags "-X github.com/rubichan/rubichan/run.version=...".
var version = "dev"

const appDescription = `rubichan runs a coding agent's whole turn loop from one command: it reads the
task from its arguments and standard input, prints the model's answer on stdout,
tool activity on stderr, and exits with a code a script can trust.

Examples:
   cat build.log | rubichan exec "why did the build fail?"
   rubichan exec --allow 'write:**' --allow 'shell:go test ./...' "fix the failing test"
   git diff | rubichan exec --output final "write a commit message for this diff"
   rubichan exec --policy ci.toml --max-turns 20 --timeout 10m "fix the lint errors"

Exit codes: 0 done, 1 runtime failure, 2 usage or configuration error,
3 stopped by the policy or paused for an approval (--on-ask defer),
4 a limit was reached, 5 the model provider failed, 6 --verify never passed,
7 the answer did not match --json-schema, 130/143 interrupted by SIGINT/SIGTERM,
141 stdout closed by its reader.

Coming from claude, gemini or codex (-p, --output-format, -o): see the README,
"Coming from another agent". Policy files, every key: docs/policy-file.md.`

// environment is what the runner reads from the process beyond its standard
// streams and arguments ([harness.Env]) and, for line mode, its interrupts.
// Tests replace it; [newProcessApp] uses the real process.
type environment struct {
	harness.Env
	// interrupts hands SIGINT to line mode; nil: a SIGINT cancels the
	// context, also in line mode.
	interrupts *linemode.Interrupts
}

func processEnvironment() environment {
	return environment{Env: harness.ProcessEnv()}
}

// newProcessApp builds the command-line application on the given streams. It never
// calls os.Exit: errors come back from Run and [Main] turns them into exit
// codes. Usage errors are printed on stderr, never stdout.
//
// urfave/cli stops parsing flags at the first positional word; [Main] puts
// flags given after the prompt in front first (see [normalizeArgs]), so
// callers of newProcessApp that want the same behaviour should do likewise.
func newProcessApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	return newApp(stdin, stdout, stderr, processEnvironment(), earlyOutput{})
}

// newApp builds the application with every command; early holds the
// sinks [runMain] made before the parse ([openEarly]), which the exec
// action writes to.
func newApp(stdin io.Reader, stdout, stderr io.Writer, env environment, early earlyOutput) *cli.App {
	return buildApp(stdin, stdout, stderr, env, early, "")
}

// buildApp is newApp with only the command named only when it is one of
// rubichan's (see [invokedCommand]), else with every command.
func buildApp(stdin io.Reader, stdout, stderr io.Writer, env environment, early earlyOutput, only string) *cli.App {
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	onUsage := func(_ *cli.Context, err error, _ bool) error {
		return exit.UsageError{Err: err}
	}
	app := &cli.App{
		Name:  "rubichan",
		Usage: "a headless coding agent for pipelines",
		UsageText: "rubichan exec [flags] [PROMPT...]\n" +
			"rubichan chat [flags] [PROMPT...]   (or rubichan -i: line mode)\n" +
			"rubichan query [flags] PROMPT\n" +
			"rubichan acp [flags]                (an editor's agent: the Agent Client Protocol)\n" +
			"rubichan policy check [flags] --tool CLASS -- ARG\n" +
			"rubichan config show [flags]\n" +
			"rubichan schema events\n" +
			"rubichan version\n" +
			"rubichan help [COMMAND]",
		Description: appDescription,
		// -v is --verbose under exec; the version has its long flag only
		// (and the version command), so -v never means two things.
		HideVersion:          true,
		Flags:                []cli.Flag{&cli.BoolFlag{Name: "version", Usage: "print the version"}},
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		ExitErrHandler:       func(*cli.Context, error) {},
		// A rule may hold commas (`shell:cut -d, -f1`, `write:{a,b}/**`):
		// each --allow or --deny is one rule, never split on commas.
		DisableSliceFlagSeparator: true,
		OnUsageError:              onUsage,
		Action:                    rootAction,
		Commands:                  commands(stdin, env, early, only),
	}
	for _, c := range app.Commands {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsage
		}
	}
	nameFlags(app.Commands)
	return app
}

// rootAction runs when no command was named: bare `rubichan` prints help on
// stderr, anything else is an unknown command. Both are usage errors.
func rootAction(c *cli.Context) error {
	if c.Bool("version") {
		return printVersion(c)
	}
	if c.Args().First() == "help" {
		return helpAction(c)
	}
	if c.NArg() == 0 {
		c.App.Writer = c.App.ErrWriter
		_ = cli.ShowAppHelp(c)
		return exit.UsageError{Err: errBareInvocation}
	}
	var names []string
	for _, cmd := range c.App.Commands {
		if !cmd.Hidden {
			names = append(names, cmd.Name)
		}
	}
	return unknownCommandError(c.Args().Slice(), names)
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version",
		UsageText: "rubichan version [--json]",
		Description: `With --json, one object: the version, the commit it was built from, the Go
   toolchain, and the versions of the formats a script may depend on: the
   machine-output events (schema_version) and the session log (format).`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exit.Usagef("version takes no arguments")
			}
			if c.Bool("json") {
				return printVersionJSON(c.App.Writer)
			}
			return printVersion(c)
		},
	}
}

// printVersion prints the line of `rubichan version` and `--version`.
func printVersion(c *cli.Context) error {
	if _, err := fmt.Fprintf(c.App.Writer, "%s version %s\n", c.App.Name, readBuildInfo()); err != nil {
		return exit.StdoutError{Err: err}
	}
	return nil
}

// helpAction is `rubichan help [COMMAND]`: the help on stdout, as --help
// prints it. It never runs the agent.
func helpAction(c *cli.Context) error {
	switch c.NArg() {
	case 1:
		return cli.ShowAppHelp(c)
	case 2:
		name := c.Args().Get(1)
		if c.App.Command(name) == nil {
			return exit.Usagef("help: unknown command %q; the commands are exec, chat, policy, config and version", name)
		}
		return cli.ShowCommandHelp(c, name)
	}
	return exit.Usagef("help takes at most one command name")
}

// commandBuilder builds one of rubichan's commands, known by its name
// before it is built (TestCommandBuilders checks the two agree).
type commandBuilder struct {
	name  string
	build func() *cli.Command
}

// commands builds rubichan's commands: only the one named only when it
// is one of them (a run neither parses nor shows another command, and
// building the fourteen commands with their flags was a tenth of every
// start of rubichan), else all of them (bare rubichan's help lists them;
// the message for an unknown command or a misplaced flag looks them up).
func commands(stdin io.Reader, env environment, early earlyOutput, only string) []*cli.Command {
	builders := []commandBuilder{
		{"exec", func() *cli.Command { return execCommand(stdin, env, early) }},
		{"chat", func() *cli.Command { return chatCommand(stdin, env) }},
		{"acp", func() *cli.Command { return acpCommand(stdin, env) }},
		{"query", func() *cli.Command { return queryCommand(stdin, env) }},
		{"config", func() *cli.Command { return configCommand(env) }},
		{"version", versionCommand},
		{"policy", func() *cli.Command { return policyCommand(env) }},
		{"skills", func() *cli.Command { return skillsCommand(env) }},
		{"sandbox", func() *cli.Command { return sandboxCommand(env) }},
		{"mcp", func() *cli.Command { return mcpCommand(env) }},
		{"schema", schemaCommand},
		{"sessions", func() *cli.Command { return sessionsCommand(env) }},
		{"doctor", func() *cli.Command { return doctorCommand(env) }},
		{"results", resultsCommand},
	}
	for _, b := range builders {
		if b.name == only {
			return []*cli.Command{b.build()}
		}
	}
	out := make([]*cli.Command, len(builders))
	for i, b := range builders {
		out[i] = b.build()
	}
	return out
}
