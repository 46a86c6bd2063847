package run

import "github.com/rubichan/rubichan/run/agent"

// Transitional shims (issue 31, step 1b): the redactor, the text helpers
// and the budget's error types moved to [agent]; these
// names keep the files that have not moved yet compiling unchanged. The
// last step of the split deletes this file.

// The redactor.
type redactor = agent.Redactor

const secretMinLen = agent.SecretMinLen

func newRedactor(secrets []string) *redactor { return agent.NewRedactor(secrets) }

// The budget's errors.
type (
	budgetError  = agent.BudgetError
	queriesError = agent.QueriesError
)

// Text helpers.
func clip(s string, max int) string { return agent.Clip(s, max) }
func shown(s string) string         { return agent.Shown(s) }
func actsOnTerminal(r rune) bool    { return agent.ActsOnTerminal(r) }
func formatUSD(v float64) string    { return agent.FormatUSD(v) }
