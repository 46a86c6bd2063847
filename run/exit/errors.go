package exit

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// UsageError marks a bad flag, argument or configuration ([Usage], exit 2).
type UsageError struct{ Err error }

// Error is the message of the usage problem, unchanged.
func (e UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the usage problem.
func (e UsageError) Unwrap() error { return e.Err }

// Usagef returns a [UsageError] with a formatted message; %w wraps as in
// [fmt.Errorf].
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// CodeError carries an explicit exit code for an error that ends a run,
// and for the limits and the policy, what ended it as an events error
// type ("max_turns", "max_denials", …) in Kind. Kind is transitional: it
// goes once the engine returns typed errors.
type CodeError struct {
	Code int
	Err  error
	Kind string
}

// Error is the message of the error, unchanged.
func (e CodeError) Error() string { return e.Err.Error() }

// Unwrap returns the error.
func (e CodeError) Unwrap() error { return e.Err }

// Reported marks an error whose message has already been shown on
// stderr, so the command layer must not print it a second time.
type Reported struct{ Err error }

// Error is the message of the error, unchanged.
func (e Reported) Error() string { return e.Err.Error() }

// Unwrap returns the error.
func (e Reported) Unwrap() error { return e.Err }

// StdoutError is a failed write on stdout. When the reader has closed the
// pipe (EPIPE) there is nobody left to answer: the run stops quietly with
// [BrokenPipe]. Any other failure is a runtime failure ([Failure]).
type StdoutError struct{ Err error }

// Error names the failed write by its cause alone.
func (e StdoutError) Error() string {
	// "write /dev/stdout: no space left on device" would say "write" and
	// "stdout" twice; the cause alone is enough.
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return "run: write stdout: " + pe.Err.Error()
	}
	return "run: write stdout: " + e.Err.Error()
}

// Unwrap returns the write error.
func (e StdoutError) Unwrap() error { return e.Err }

// IsBrokenPipe reports whether err is a write on a stdout nobody reads
// any more; such an error is not worth a message.
func IsBrokenPipe(err error) bool {
	var se StdoutError
	return errors.As(err, &se) && errors.Is(se.Err, syscall.EPIPE)
}
