package exit

import (
	"errors"
	"strconv"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/events"
)

// Outcome is how a run that ended with err and exit code code reads in a
// result event: its status, and unless it succeeded, what went wrong.
func Outcome(err error, code int) (string, *events.ResultError) {
	if err == nil && code == OK {
		return events.StatusSuccess, nil
	}
	typ, retryable := Kind(err)
	if err == nil { // not reached: a failure without an error
		typ = events.ErrInternal
	}
	status := events.StatusError
	switch {
	case typ == events.ErrInterrupted:
		status = events.StatusInterrupted
	case code == Limit:
		status = events.StatusLimit
	case code == Policy:
		status = events.StatusDenied
	}
	msg := "exit code " + strconv.Itoa(code)
	if err != nil {
		msg = err.Error()
	}
	return status, &events.ResultError{Type: typ, Message: msg, Retryable: retryable}
}

// Kind classifies an error that ended a run or a model request as an
// events error type, and says whether the same thing may succeed later.
func Kind(err error) (string, bool) {
	var (
		sig SignalError
		ee  CodeError
		be  *agent.BudgetError
		pe  *policy.LoadError
		ae  *llm.APIError
		ue  UsageError
	)
	switch {
	case errors.As(err, &sig):
		return events.ErrInterrupted, true
	case IsBrokenPipe(err):
		return events.ErrBrokenPipe, false
	case engineKind(err):
		typ, retryable, _ := EngineKind(err)
		return typ, retryable
	case errors.As(err, &ee) && ee.Kind != "":
		return ee.Kind, ee.Kind == events.ErrTimeout
	case errors.As(err, &be):
		switch {
		case be.Model != "":
			return events.ErrConfig, false
		case be.Limit == "max_tokens_total":
			return events.ErrMaxTokens, false
		}
		return events.ErrMaxCost, false
	case errors.As(err, &pe):
		return events.ErrPolicy, false
	case errors.As(err, &ae):
		return apiErrorKind(ae), ae.Retryable
	case isConfigError(err):
		return events.ErrConfig, false
	case errors.As(err, &ue):
		return events.ErrUsage, false
	case Code(err) == Provider:
		return events.ErrServer, false
	}
	return events.ErrInternal, false
}

// apiErrorKind maps a provider failure to its events error type.
func apiErrorKind(ae *llm.APIError) string {
	switch ae.Kind {
	case llm.KindAuth:
		return events.ErrAuth
	case llm.KindRateLimit:
		return events.ErrRateLimit
	case llm.KindQuota:
		return events.ErrQuota
	case llm.KindOverloaded:
		return events.ErrOverloaded
	case llm.KindContextLength:
		return events.ErrContextOverflow
	case llm.KindInvalidRequest, llm.KindNotFound, llm.KindTooLarge:
		return events.ErrBadRequest
	case llm.KindNetwork, llm.KindStreamCut:
		return events.ErrNetwork
	}
	return events.ErrServer
}

// APIStatus is the HTTP status of a provider failure, 0 when none.
func APIStatus(err error) int {
	var ae *llm.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// ConfigError marks a failure to load the configuration of a run —
// its files, RUBICHAN_* variables, provider and key — as a config error
// in a result; its exit code is that of the error it wraps.
type ConfigError struct{ Err error }

// Error is the wrapped error's message.
func (e ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e ConfigError) Unwrap() error { return e.Err }

// isConfigError reports whether err is about the configuration rather than
// the command line: a file, a variable, a missing key.
func isConfigError(err error) bool {
	var se ConfigError
	var ce *config.Error
	if errors.As(err, &ce) {
		return ce.File != config.FromCommandLine
	}
	return errors.As(err, &se)
}

// engineKind reports whether err ended a run with a limit, stop or check
// of the engine that [EngineKind] classifies.
func engineKind(err error) bool {
	_, _, ok := EngineKind(err)
	return ok
}
