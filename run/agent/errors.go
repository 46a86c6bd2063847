package agent

import (
	"errors"
	"fmt"
	"strconv"
)

// The sentinels of the engine's errors.
var (
	// ErrTimeout is the cause to give [context.WithTimeoutCause] for the
	// run's deadline (--timeout): the engine ends such a run with a
	// [*LimitError] of kind [LimitTimeout].
	ErrTimeout = errors.New("timeout")
	// ErrDeferred matches (errors.Is) the [*StopError] of a run paused
	// with calls left pending for a person.
	ErrDeferred = errors.New("deferred for approval")
	// ErrVerifyFailed is wrapped by the [*CheckError] of --verify.
	ErrVerifyFailed = errors.New("verification failed")
)

// LimitKind says which limit ended a run. The kinds but [LimitBudget] are
// the machine output's error types.
type LimitKind string

// The kinds of [LimitError].
const (
	LimitMaxTurns     LimitKind = "max_turns"      // --max-turns
	LimitTimeout      LimitKind = "timeout"        // --timeout
	LimitMaxToolCalls LimitKind = "max_tool_calls" // --max-tool-calls
	// LimitBudget is a cap of the [Budget]: Err is a [*BudgetError] or a
	// [*QueriesError].
	LimitBudget LimitKind = "budget"
)

// LimitError ends a run that reached a limit (the command layer's exit
// 4). The engine has emitted [EventLimit] with its message.
type LimitError struct {
	Kind LimitKind
	Err  error
}

// Error is the limit's message.
func (e *LimitError) Error() string { return e.Err.Error() }

// Unwrap returns the limit's error.
func (e *LimitError) Unwrap() error { return e.Err }

// StopKind says why the policy ended a run.
type StopKind string

// The kinds of [StopError].
const (
	StopPolicy     StopKind = "policy"      // a call needed approval, and the run aborts on it
	StopDeferred   StopKind = "deferred"    // a call needed approval, and the run paused with it pending
	StopMaxDenials StopKind = "max_denials" // the policy refused max_denials calls
)

// StopError ends a run the policy stopped (the command layer's exit 3).
// The engine has emitted [EventLimit] with its message.
type StopError struct {
	Kind StopKind
	Msg  string
}

// Error is the stop's message.
func (e *StopError) Error() string { return e.Msg }

// Is reports whether a paused run's stop is [ErrDeferred].
func (e *StopError) Is(target error) bool { return e.Kind == StopDeferred && target == ErrDeferred }

// ProviderWhy says how a model request failed.
type ProviderWhy uint8

// The kinds of [ProviderError].
const (
	ProviderFailed        ProviderWhy = iota // failed after its retries
	ProviderContextLength                    // the conversation no longer fits, and compaction could not help
	ProviderPermanent                        // a [Permanent] error: never retried, shown as it is
)

// ProviderError ends a run whose model request failed (the command
// layer's exit 5).
type ProviderError struct {
	Err error
	Why ProviderWhy
}

// Error says the request failed, and why.
func (e *ProviderError) Error() string {
	switch e.Why {
	case ProviderContextLength:
		return "the conversation no longer fits the model's context window: " + e.Err.Error()
	case ProviderPermanent:
		return e.Err.Error()
	}
	return "model request failed: " + e.Err.Error()
}

// Unwrap returns the request's error.
func (e *ProviderError) Unwrap() error { return e.Err }

// Permanent is implemented by errors a retry cannot cure (a replay that
// left its cassette). The engine never retries them and ends the run with
// a [*ProviderError] of kind [ProviderPermanent] whose message is the
// error's own.
type Permanent interface {
	error
	Permanent() bool
}

// PermanentCause returns the [Permanent] error in err's chain that says it
// is one, or nil.
func PermanentCause(err error) error {
	var p Permanent
	if errors.As(err, &p) && p.Permanent() {
		return p
	}
	return nil
}

// ToolError ends a run whose tool failed to run at all: its
// infrastructure, not the command it ran (the command layer's exit 1).
type ToolError struct {
	Tool string
	Err  error
}

// Error names the tool.
func (e *ToolError) Error() string { return "tool " + e.Tool + ": " + e.Err.Error() }

// Unwrap returns the tool's error.
func (e *ToolError) Unwrap() error { return e.Err }

// CheckError ends a run whose final answer never passed a check within
// its attempts: Check "verify" (--verify, the command layer's exit 6).
// The engine or its [Verifier] has emitted [EventLimit] with its message.
type CheckError struct {
	Check string
	Err   error
}

// Error is the check's message.
func (e *CheckError) Error() string { return e.Err.Error() }

// Unwrap returns the check's error.
func (e *CheckError) Unwrap() error { return e.Err }

// Announced reports whether err ends a run with a message already shown
// as an [EventLimit]: a [*LimitError], [*StopError] or [*CheckError].
// The caller must not report it a second time.
func Announced(err error) bool {
	var le *LimitError
	var se *StopError
	var ce *CheckError
	return errors.As(err, &le) || errors.As(err, &se) || errors.As(err, &ce)
}

// BudgetError says a run reached its token or cost cap (the command layer
// ends the run with exit code 4 for it), or that a cost cap was set for a
// model without a price (a usage error there, exit 2).
type BudgetError struct {
	// Limit is "max_cost" or "max_tokens_total".
	Limit string
	// Spent is what the run had spent when it stopped (USD or tokens).
	Spent float64
	// Projected is Spent plus the estimate of the next request; zero when
	// the cap was passed by a request already made.
	Projected float64
	// Max is the cap.
	Max float64
	// Model is set, and the rest zero, when the cap cannot be enforced
	// because the model's price is unknown.
	Model string
}

// Error says which cap was reached and what was spent, in the words of the
// flag that sets it.
func (e *BudgetError) Error() string {
	if e.Model != "" {
		return fmt.Sprintf("--max-cost %s: the price of model %q is not known, so the cap cannot be enforced; "+
			"add [prices.%q] with input and output in USD per million tokens to a config file",
			FormatUSD(e.Max), e.Model, e.Model)
	}
	f := func(v float64) string {
		if e.Limit == "max_cost" {
			return FormatUSD(v)
		}
		return strconv.FormatFloat(v, 'f', 0, 64) + " tokens"
	}
	flag := "--max-cost"
	if e.Limit == "max_tokens_total" {
		flag = "--max-tokens-total"
	}
	if e.Projected > 0 {
		return fmt.Sprintf("reached %s %s: spent %s, and the next request would bring it to about %s",
			flag, f(e.Max), f(e.Spent), f(e.Projected))
	}
	return fmt.Sprintf("passed %s %s: spent %s", flag, f(e.Max), f(e.Spent))
}

// QueriesError says a run reached --max-queries: it sent Max sub-queries.
type QueriesError struct{ Max int }

// Error names the flag and its value.
func (e *QueriesError) Error() string {
	return "reached --max-queries " + strconv.Itoa(e.Max) + ": the run sent that many sub-queries"
}
