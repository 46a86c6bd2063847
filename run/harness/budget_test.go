package harness

import (
	"errors"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
)

// TestNewBudget: the run's budget is priced from the loaded prices as
// config.LookupPrice finds them (vendor prefixes, date suffixes), and a
// cost cap on a model without a price is a usage error.
func TestNewBudget(t *testing.T) {
	t.Parallel()
	u := llm.Usage{InputTokens: 1000, OutputTokens: 100}
	for _, model := range []string{"claude-sonnet-5-5", "anthropic/claude-sonnet-5.5"} {
		b, err := NewBudget(config.Limits{MaxCost: 1}, model, config.DefaultPrices())
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if _, ok := b.RequestCost(u); !ok {
			t.Errorf("%s: no price", model)
		}
	}
	_, err := NewBudget(config.Limits{MaxCost: 1}, "mystery-model", config.DefaultPrices())
	var ue exit.UsageError
	var be *agent.BudgetError
	if !errors.As(err, &ue) || !errors.As(err, &be) || be.Model != "mystery-model" {
		t.Errorf("error %#v, want a usage error carrying the budget error", err)
	}
}
