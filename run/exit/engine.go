package exit

import (
	"errors"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
)

// engineCode is the exit code of the engine's typed error in err's chain:
// [Limit] for an [*agent.LimitError], [Policy] for an [*agent.StopError],
// [Provider] for an [*agent.ProviderError], [Failure] for an
// [*agent.ToolError], and for an [*agent.CheckError] that of its check
// ([Verify] for "verify", [Schema] for "json-schema"). ok is false when err
// holds none of them.
func engineCode(err error) (code int, ok bool) {
	var (
		le *agent.LimitError
		se *agent.StopError
		pe *agent.ProviderError
		te *agent.ToolError
		ce *agent.CheckError
	)
	switch {
	case errors.As(err, &le):
		return Limit, true
	case errors.As(err, &se):
		return Policy, true
	case errors.As(err, &pe):
		return Provider, true
	case errors.As(err, &te):
		return Failure, true
	case errors.As(err, &ce):
		switch ce.Check {
		case "verify":
			return Verify, true
		case "json-schema":
			return Schema, true
		}
		return Failure, true
	}
	return 0, false
}

// EngineKind classifies the limit, stop or check that ended a run as the
// events error type machine output names, and says whether the same run
// may succeed later (a timeout may). ok is false when err holds none of
// them, and for a budget limit, which the caller classifies by its
// [*agent.BudgetError] or [*agent.QueriesError].
func EngineKind(err error) (typ string, retryable, ok bool) {
	var (
		le *agent.LimitError
		se *agent.StopError
		ce *agent.CheckError
	)
	switch {
	case errors.As(err, &le):
		if le.Kind == agent.LimitBudget {
			return "", false, false
		}
		return string(le.Kind), le.Kind == agent.LimitTimeout, true
	case errors.As(err, &se):
		if se.Kind == agent.StopDeferred {
			return events.ErrPolicy, false, true
		}
		return string(se.Kind), false, true
	case errors.As(err, &ce):
		switch ce.Check {
		case "verify":
			return events.ErrVerifyFailed, false, true
		case "json-schema":
			return events.ErrStructuredOutput, false, true
		}
	}
	return "", false, false
}
