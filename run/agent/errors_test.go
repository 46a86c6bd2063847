package agent_test

import (
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

// TestErrorMessages pins the words of the budget's errors: the scripts
// and the JSON result show them byte for byte.
func TestErrorMessages(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		want string
	}{
		"cost cap without a price": {&agent.BudgetError{Limit: "max_cost", Max: 1, Model: "m"},
			`--max-cost $1.00: the price of model "m" is not known, so the cap cannot be enforced; ` +
				`add [prices."m"] with input and output in USD per million tokens to a config file`},
		"cost cap, next request": {&agent.BudgetError{Limit: "max_cost", Spent: 0.5, Projected: 1.5, Max: 1},
			"reached --max-cost $1.00: spent $0.50, and the next request would bring it to about $1.50"},
		"cost cap passed": {&agent.BudgetError{Limit: "max_cost", Spent: 0.0042, Max: 0.004},
			"passed --max-cost $0.0040: spent $0.0042"},
		"token cap, next request": {&agent.BudgetError{Limit: "max_tokens_total", Spent: 900, Projected: 1200, Max: 1000},
			"reached --max-tokens-total 1000 tokens: spent 900 tokens, and the next request would bring it to about 1200 tokens"},
		"token cap passed": {&agent.BudgetError{Limit: "max_tokens_total", Spent: 1200, Max: 1000},
			"passed --max-tokens-total 1000 tokens: spent 1200 tokens"},
		"max queries": {&agent.QueriesError{Max: 3}, "reached --max-queries 3: the run sent that many sub-queries"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q\nwant      %q", got, tc.want)
			}
		})
	}
}
