package run

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/urfave/cli/v2"
)

// Exit codes, as documented in DESIGN.md.
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 2
	exitPolicy   = 3
	exitLimit    = 4
	exitProvider = 5

	// exitBrokenPipe ends a run whose stdout reader has gone (`rubichan
	// exec … | head -1`): 128 + SIGPIPE, what a shell reports for a
	// process that signal killed.
	exitBrokenPipe = 128 + int(syscall.SIGPIPE)
)

// errTimeout is the cancellation cause when --timeout expires.
var errTimeout = errors.New("timeout")

// errRunEnded tells runCalls that the run's context ended while a tool
// ran; it reports why after the tool's own line.
var errRunEnded = errors.New("run ended")

// errBareInvocation is returned when rubichan runs with no command at all;
// help has already been printed, so [Main] prints nothing more.
var errBareInvocation = errors.New("no command given")

// usageError marks a bad flag, argument or configuration (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitError carries an explicit exit code for an error that ends a run,
// and for the limits and the policy, what ended it as an events error
// type ("max_turns", "max_denials", …).
type exitError struct {
	code int
	err  error
	kind string
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// usagef returns a usage error (exit 2) with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// reportedError marks an error whose message has already been shown on
// stderr, so [Main] must not print it a second time.
type reportedError struct{ err error }

func (e reportedError) Error() string { return e.err.Error() }
func (e reportedError) Unwrap() error { return e.err }

// stdoutError is a failed write on stdout. When the reader has closed the
// pipe (EPIPE) there is nobody left to answer: the run stops quietly with
// [exitBrokenPipe]. Any other failure is a runtime failure (exit 1).
type stdoutError struct{ err error }

func (e stdoutError) Error() string {
	// "write /dev/stdout: no space left on device" would say "write" and
	// "stdout" twice; the cause alone is enough.
	var pe *fs.PathError
	if errors.As(e.err, &pe) {
		return "run: write stdout: " + pe.Err.Error()
	}
	return "run: write stdout: " + e.err.Error()
}
func (e stdoutError) Unwrap() error { return e.err }

// brokenPipe reports whether err is a write on a stdout nobody reads any
// more; such an error is not worth a message.
func brokenPipe(err error) bool {
	var se stdoutError
	return errors.As(err, &se) && errors.Is(se.err, syscall.EPIPE)
}

// exitCode maps an error returned by the app to a process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	if brokenPipe(err) {
		return exitBrokenPipe
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

// requireSubcommand is the action of a command that only groups
// subcommands (`rubichan config`, `policy`, …): without a known subcommand
// there is nothing to do, which is a usage error naming the command, not
// help on stdout. hint follows "missing subcommand".
func requireSubcommand(name, hint string) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() == 0 {
			return usagef("%s: missing subcommand%s", name, hint)
		}
		return usagef("%s: unknown subcommand %q", name, c.Args().First())
	}
}
