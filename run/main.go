package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/toolkit/sandbox"
	"github.com/urfave/cli/v2"
)

// Main runs rubichan with the given arguments (args[0] is the program name)
// and standard streams, and returns the process exit code. ctx is cancelled
// with a [exit.SignalError] cause when the process is interrupted.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runMain(ctx, args, stdin, stdout, stderr, processEnvironment())
}

func runMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env environment) int {
	if stderr == nil {
		stderr = io.Discard
	}
	if sandbox.IsHelper(args) {
		// The run started rubichan as its sandbox spawner or one-shot
		// helper (or the self-test's probe): confine and serve or exec.
		return sandbox.Dispatch(args, env.Environ(), stderr)
	}
	early := scanArgs(args, env.LookupEnv)
	args = early.args
	out := openEarly(early, stdout, stderr, env.LookupEnv, nil)
	js, gh := out.json, out.github
	if gh != nil {
		// Under GitHub Actions nothing on stderr can be a workflow
		// command but the reporter's own.
		stderr = gh.Out()
	}
	app := buildApp(stdin, stdout, stderr, env, out, invokedCommand(args))
	normalized, err := normalizeArgs(app, args)
	if err == nil {
		err = checkBoolEnv(app, normalized, env.LookupEnv)
	}
	if err == nil {
		if early.command != "chat" {
			// Line mode waits itself: before its terminal goes
			// raw and before its first run (see Interrupts).
			env.interrupts.AwaitListening()
		}
		err = app.RunContext(ctx, normalized)
	}
	var rep exit.Reported
	if err != nil && !errors.Is(err, errBareInvocation) && !errors.As(err, &rep) && !exit.IsBrokenPipe(err) && !interruptedBy(ctx) {
		// An error may quote a file, a server or the model: its
		// control characters are shown.
		fmt.Fprintf(stderr, "rubichan: %s\n", agent.Shown(err.Error()))
		if exit.Code(err) == exit.Usage && !fileContentError(err) {
			fmt.Fprintf(stderr, "run '%s' for usage\n", helpHint(app, args))
		}
	}
	code := exit.Code(err)
	var sig exit.SignalError
	if errors.As(context.Cause(ctx), &sig) {
		code = sig.ExitCode()
		if !errors.As(err, &sig) {
			err = sig
		}
	}
	if js != nil {
		// The result is the last line, whatever happened; when nobody
		// can read it any more, the exit code says so.
		if werr := js.Finish(err, code); werr != nil && code == exit.OK {
			code = exit.Code(werr)
		}
	}
	if gh != nil {
		finishGitHub(gh, err, code)
	}
	return code
}

// interruptedBy reports whether ctx ended with a signal: the run said so.
func interruptedBy(ctx context.Context) bool {
	var sig exit.SignalError
	return errors.As(context.Cause(ctx), &sig)
}

// fileContentError reports whether err is about what a configuration or
// policy file says, or a cap the configuration cannot enforce: the error
// names the file and key, and the command's help would not fix it.
func fileContentError(err error) bool {
	var ce *config.Error
	var pe *policy.LoadError
	var be *agent.BudgetError
	var fe *cassette.FormatError
	if errors.As(err, &ce) {
		return ce.File != config.FromCommandLine
	}
	return errors.As(err, &pe) || errors.As(err, &be) || errors.As(err, &fe) || errors.Is(err, sandbox.ErrUnmet)
}

// helpHint is the help command a usage error points to: that of the
// deepest command or subcommand args name.
func helpHint(app *cli.App, args []string) string {
	if len(args) < 2 || app.Command(args[1]) == nil {
		return "rubichan --help"
	}
	path := []string{"rubichan", args[1]}
	cmd := app.Command(args[1])
	for _, a := range args[2:] {
		if cmd = cmd.Command(a); cmd == nil {
			break
		}
		path = append(path, a)
	}
	return strings.Join(path, " ") + " --help"
}
