package agent

import "context"

// Names the external tests (package agent_test) read.
const (
	CompactSystem = compactSystem
	CutAnswerNote = cutAnswerNote
)

// RequestError is [Agent.requestError].
func (l *Agent) RequestError(ctx context.Context, err error) error { return l.requestError(ctx, err) }

// Limit is [Agent.limit].
func (l *Agent) Limit(kind LimitKind, format string, args ...any) error {
	return l.limit(kind, format, args...)
}

// PolicyStop is [Agent.policyStop].
func (l *Agent) PolicyStop(kind StopKind, format string, args ...any) error {
	return l.policyStop(kind, format, args...)
}

// BudgetStop is [Agent.budgetStop].
func (l *Agent) BudgetStop(err error) error { return l.budgetStop(err) }

// RetryableAfterPrint is retryableAfterPrint.
func RetryableAfterPrint(err error) bool { return retryableAfterPrint(err) }

// StopReason is stopReason.
func StopReason(err error) string { return stopReason(err) }
