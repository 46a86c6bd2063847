package agent_test

import (
	"context"
	"math"
	"testing"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
)

// TestMessageDoneCost: the loop puts each request's cost at its model's
// price on agent.EventMessageDone (the JSON sink's "cost_usd"), and nothing when
// the price is unknown or there is no budget.
func TestMessageDoneCost(t *testing.T) {
	t.Parallel()
	priced := func(model string) (agent.Price, bool) {
		return agent.Price{Input: 2, Output: 10}, model == "test-model"
	}
	for name, tc := range map[string]struct {
		prices agent.PriceFunc
		noBud  bool
		want   *float64 // nil: no cost on the event
	}{
		"priced":        {prices: priced, want: ptr(10*2e-6 + 3*10e-6)},
		"unknown price": {prices: func(string) (agent.Price, bool) { return agent.Price{}, false }},
		"no budget":     {noBud: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b *agent.Budget
			if !tc.noBud {
				var err error
				if b, err = agent.NewBudget(agent.BudgetLimits{}, "test-model", tc.prices); err != nil {
					t.Fatal(err)
				}
			}
			r := runLoop(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
				{Text: []string{"done"}, Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 3}},
			}}, agent.Options{Budget: b}, nil)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			done := r.Kinds(agent.EventMessageDone)
			if len(done) != 1 {
				t.Fatalf("%d agent.EventMessageDone, want 1", len(done))
			}
			got := done[0].Cost
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("Cost = %v, want none", *got)
			case tc.want != nil && got == nil:
				t.Errorf("Cost = none, want %v", *tc.want)
			case tc.want != nil && math.Abs(*got-*tc.want) > 1e-12:
				t.Errorf("Cost = %v, want %v", *got, *tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
