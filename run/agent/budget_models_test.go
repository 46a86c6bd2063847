package agent_test

import (
	"math"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
)

// A budget whose model changes prices each request at the model that
// made it, and names the models without a price when the cost is unknown.
func TestBudgetPricesEachModel(t *testing.T) {
	t.Parallel()
	prices := pricesOf(map[string]agent.Price{"a": {Input: 1, Output: 1}, "b": {Input: 100, Output: 100}})
	req := llm.Usage{InputTokens: 1000, OutputTokens: 1000}
	cost := func(b *agent.Budget) float64 {
		t.Helper()
		c, ok := b.Cost()
		if !ok {
			t.Fatalf("cost unknown: %s", b.CostSummary())
		}
		return c
	}
	b, err := agent.NewBudget(agent.BudgetLimits{}, "a", prices)
	if err != nil {
		t.Fatal(err)
	}
	runBudget(t, b, []llm.Usage{req})
	b.SetModel("b")
	if got := cost(b); math.Abs(got-0.002) > 1e-12 {
		t.Errorf("after switching, before a request: $%v, want $0.002", got)
	}
	if c, _ := b.RequestCost(req); math.Abs(c-0.2) > 1e-12 {
		t.Errorf("RequestCost after switching: $%v, want $0.2", c)
	}
	runBudget(t, b, []llm.Usage{req})
	b.SetModel("a")
	runBudget(t, b, []llm.Usage{req})
	if got := cost(b); math.Abs(got-0.204) > 1e-12 {
		t.Errorf("a, b, a: $%v, want $0.204", got)
	}
	by := b.ByModel()
	if len(by) != 2 || by[0].Model != "a" || by[0].Requests != 2 || by[1].Model != "b" || by[1].Requests != 1 ||
		math.Abs(by[1].CostUSD-0.2) > 1e-12 || !by[1].CostKnown {
		t.Errorf("ByModel() = %+v", by)
	}

	// A model without a price, once used, makes the cost unknown and is named.
	b.SetModel("mystery")
	if _, ok := b.Cost(); !ok {
		t.Error("an unused model without a price made the cost unknown")
	}
	runBudget(t, b, []llm.Usage{req})
	if _, ok := b.Cost(); ok {
		t.Error("Cost() knows the price of mystery")
	}
	if got, want := b.CostSummary(), "cost unknown (no price for mystery)"; got != want {
		t.Errorf("CostSummary() = %q, want %q", got, want)
	}
}
