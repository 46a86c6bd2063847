package exit

import (
	"errors"
	"syscall"

	"github.com/rubichan/rubichan/run/agent"
)

// The exit codes of DESIGN.md's table.
const (
	OK       = 0 // the model finished its answer
	Failure  = 1 // runtime failure: a tool's infrastructure, an I/O error, a bug
	Usage    = 2 // usage or configuration error
	Policy   = 3 // the policy stopped the run
	Limit    = 4 // a limit was reached
	Provider = 5 // the model provider failed after retries
	Verify   = 6 // --verify never passed within its attempts
	Schema   = 7 // the final answer never matched --json-schema

	// BrokenPipe ends a run whose stdout reader has gone (`rubichan
	// exec … | head -1`): 128 + SIGPIPE, what a shell reports for a
	// process that signal killed.
	BrokenPipe = 128 + int(syscall.SIGPIPE)
)

// Code maps an error returned by the app to a process exit code: [OK] for
// nil, [Usage] for a [UsageError] anywhere in the chain, [BrokenPipe] for
// a write on a stdout nobody reads, the code of a [CodeError], the code of
// the engine's typed error that ended the run (see [engineCode]), [Limit]
// for a cap the engine's budget reached (an [*agent.BudgetError] or an
// [*agent.QueriesError]; [Usage] for a cost cap on a model without a
// price), and [Failure] for anything else. A [SignalError] is [Failure] here: the
// caller that knows the process was interrupted takes
// [SignalError.ExitCode] instead.
func Code(err error) int {
	if err == nil {
		return OK
	}
	var ue UsageError
	if errors.As(err, &ue) {
		return Usage
	}
	if IsBrokenPipe(err) {
		return BrokenPipe
	}
	var ce CodeError
	if errors.As(err, &ce) {
		return ce.Code
	}
	if c, ok := engineCode(err); ok {
		return c
	}
	var be *agent.BudgetError
	if errors.As(err, &be) {
		if be.Model != "" { // a cost cap that cannot be enforced
			return Usage
		}
		return Limit
	}
	var qe *agent.QueriesError
	if errors.As(err, &qe) {
		return Limit
	}
	return Failure
}

// Meaning says in words what an exit code means (DESIGN.md's table), for
// a person reading a report of the run; "unknown" for a code the table
// does not name.
func Meaning(code int) string {
	switch code {
	case OK:
		return "the model finished its answer"
	case Failure:
		return "runtime failure"
	case Usage:
		return "usage or configuration error"
	case Policy:
		return "stopped by the policy"
	case Limit:
		return "a limit was reached"
	case Provider:
		return "the model provider failed"
	case Verify:
		return "--verify never passed"
	case Schema:
		return "the answer did not match --json-schema"
	case 130:
		return "interrupted by SIGINT"
	case 143:
		return "interrupted by SIGTERM"
	case BrokenPipe:
		return "stdout closed by its reader"
	}
	return "unknown"
}
