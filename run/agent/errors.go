package agent

import (
	"fmt"
	"strconv"
)

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
