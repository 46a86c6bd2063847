package run

import (
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/exit"
)

// Transitional names for the exit-code contract, now in run/exit, so the
// files of run that have not moved yet compile unchanged. Phase 4 of the
// engine split deletes this file.

// Exit codes, as documented in DESIGN.md.
const (
	exitOK         = exit.OK
	exitFailure    = exit.Failure
	exitUsage      = exit.Usage
	exitPolicy     = exit.Policy
	exitLimit      = exit.Limit
	exitProvider   = exit.Provider
	exitVerify     = exit.Verify
	exitBrokenPipe = exit.BrokenPipe
)

// usageError is [exit.UsageError].
type usageError = exit.UsageError

// reportedError is [exit.Reported].
type reportedError = exit.Reported

// stdoutError is [exit.StdoutError].
type stdoutError = exit.StdoutError

// usagef is [exit.Usagef].
func usagef(format string, args ...any) error { return exit.Usagef(format, args...) }

// brokenPipe is [exit.IsBrokenPipe].
func brokenPipe(err error) bool { return exit.IsBrokenPipe(err) }

// exitCode is [exit.Code].
func exitCode(err error) int { return exit.Code(err) }

// settingsError is [exit.ConfigError].
type settingsError = exit.ConfigError

// outcome is [exit.Outcome].
func outcome(err error, code int) (string, *events.ResultError) { return exit.Outcome(err, code) }
