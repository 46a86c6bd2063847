package run

// budgetStop reports a budget error from [Budget] as the limit that ends
// the run (exit 4), keeping the *BudgetError in the chain.
func (l *loop) budgetStop(err error) error {
	l.emit(Event{Kind: EventLimit, Text: err.Error()})
	return reportedError{err}
}
