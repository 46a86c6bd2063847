package run

import (
	"github.com/rubichan/rubichan/llm"
)

// budgetStop reports a budget error from [Budget] as the limit that ends
// the run (exit 4), keeping the *BudgetError in the chain.
func (l *loop) budgetStop(err error) error {
	l.emit(Event{Kind: EventLimit, Text: err.Error()})
	return reportedError{err}
}

// usageSince returns the tokens counted in now and not in before.
func usageSince(now, before llm.Usage) llm.Usage {
	return llm.Usage{
		InputTokens:         now.InputTokens - before.InputTokens,
		OutputTokens:        now.OutputTokens - before.OutputTokens,
		CacheCreationTokens: now.CacheCreationTokens - before.CacheCreationTokens,
		CacheReadTokens:     now.CacheReadTokens - before.CacheReadTokens,
	}
}
