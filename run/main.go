package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// SignalError is the cancellation cause main sets when the process receives
// SIGINT or SIGTERM, so the runner can tell the two apart (exit 130 or 143).
type SignalError struct {
	Signal os.Signal
}

func (e SignalError) Error() string { return "interrupted by " + e.Signal.String() }

// ExitCode returns the conventional exit code for the signal: 128 + its number.
func (e SignalError) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// Main runs rubichan with the given arguments (args[0] is the program name)
// and standard streams, and returns the process exit code. ctx is cancelled
// with a [SignalError] cause when the process is interrupted.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := NewApp(stdin, stdout, stderr)
	err := app.RunContext(ctx, args)
	var sig SignalError
	if errors.As(context.Cause(ctx), &sig) {
		return sig.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(stderr, "rubichan: %v\n", err)
	}
	return exitCode(err)
}
