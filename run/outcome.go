package run

import (
	"errors"
	"strconv"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/exit"
)

// outcome is how a run that ended with err and exit code code reads in a
// result event: its status, and unless it succeeded, what went wrong.
func outcome(err error, code int) (string, *events.ResultError) {
	if err == nil && code == exitOK {
		return events.StatusSuccess, nil
	}
	typ, retryable := errorKind(err)
	if err == nil { // not reached: a failure without an error
		typ = events.ErrInternal
	}
	status := events.StatusError
	switch {
	case typ == events.ErrInterrupted:
		status = events.StatusInterrupted
	case code == exitLimit:
		status = events.StatusLimit
	case code == exitPolicy:
		status = events.StatusDenied
	}
	msg := "exit code " + itoa(code)
	if err != nil {
		msg = err.Error()
	}
	return status, &events.ResultError{Type: typ, Message: msg, Retryable: retryable}
}

// errorKind classifies an error that ended a run or a model request as an
// events error type, and says whether the same thing may succeed later.
func errorKind(err error) (string, bool) {
	var (
		sig SignalError
		ee  exit.CodeError
		be  *budgetError
		pe  *policy.LoadError
		ae  *llm.APIError
		ue  usageError
	)
	switch {
	case errors.As(err, &sig):
		return events.ErrInterrupted, true
	case brokenPipe(err):
		return events.ErrBrokenPipe, false
	case engineKind(err):
		typ, retryable, _ := exit.EngineKind(err)
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
	case configError(err):
		return events.ErrConfig, false
	case errors.As(err, &ue):
		return events.ErrUsage, false
	case exitCode(err) == exitProvider:
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

// apiStatus is the HTTP status of a provider failure, 0 when none.
func apiStatus(err error) int {
	var ae *llm.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// settingsError marks a failure to load the configuration of a run —
// its files, RUBICHAN_* variables, provider and key — as a config error
// in a result; its exit code is that of the error it wraps.
type settingsError struct{ err error }

func (e settingsError) Error() string { return e.err.Error() }
func (e settingsError) Unwrap() error { return e.err }

// configError reports whether err is about the configuration rather than
// the command line: a file, a variable, a missing key.
func configError(err error) bool {
	var se settingsError
	var ce *config.Error
	if errors.As(err, &ce) {
		return ce.File != config.FromCommandLine
	}
	return errors.As(err, &se)
}

func itoa(n int) string { return strconv.Itoa(n) }

// engineKind reports whether err ended a run with a limit, stop or check
// of the engine that [exit.EngineKind] classifies.
func engineKind(err error) bool {
	_, _, ok := exit.EngineKind(err)
	return ok
}
