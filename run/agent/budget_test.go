package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
)

// testPrices prices "m" at $2 input and $10 output per million tokens, so a
// request of 1000 input and 100 output tokens costs $0.003.
func testPrices() agent.PriceFunc {
	return pricesOf(map[string]agent.Price{"m": {Input: 2, Output: 10, CacheRead: 0.2, CacheWrite: 2.5}})
}

// pricesOf looks models up in prices by their exact names.
func pricesOf(prices map[string]agent.Price) agent.PriceFunc {
	return func(model string) (agent.Price, bool) {
		p, ok := prices[model]
		return p, ok
	}
}

// runBudget plays requests of the given usage through a budget the way the
// loop does and returns how many requests were made and the error that
// stopped it (nil if all were made).
func runBudget(t *testing.T, b *agent.Budget, usages []llm.Usage) (int, error) {
	t.Helper()
	for i, u := range usages {
		if err := b.BeforeRequest(); err != nil {
			return i, err
		}
		if err := b.AfterRequest(u); err != nil {
			return i + 1, err
		}
	}
	return len(usages), nil
}

func TestBudgetStopsAtTheRightRequest(t *testing.T) {
	t.Parallel()
	req := llm.Usage{InputTokens: 1000, OutputTokens: 100} // $0.003, 1100 tokens
	five := []llm.Usage{req, req, req, req, req}
	for _, tc := range []struct {
		name      string
		limits    agent.BudgetLimits
		usages    []llm.Usage
		wantReqs  int
		wantLimit string
		projected bool
	}{
		{"no caps", agent.BudgetLimits{}, five, 5, "", false},
		// After 2 requests $0.006 is spent; a third would bring it to $0.009.
		{"cost stops before the third", agent.BudgetLimits{MaxCost: 0.007}, five, 2, "max_cost", true},
		{"cost exactly reachable", agent.BudgetLimits{MaxCost: 0.009}, five, 3, "max_cost", true},
		{"cost roomy", agent.BudgetLimits{MaxCost: 1}, five, 5, "", false},
		// After 3 requests 3300 tokens; a fourth would make 4400.
		{"tokens stop before the fourth", agent.BudgetLimits{MaxTokens: 4000}, five, 3, "max_tokens_total", true},
		{"tokens exactly", agent.BudgetLimits{MaxTokens: 5500}, five, 5, "", false},
		// One request larger than the cap: stopped after it, not before.
		{"first request passes the cap", agent.BudgetLimits{MaxTokens: 500}, five, 1, "max_tokens_total", false},
		// A sudden big request passes the cap after it is made.
		{"jump after", agent.BudgetLimits{MaxCost: 0.05}, []llm.Usage{req, {InputTokens: 30000}, req}, 2, "max_cost", false},
		{"both caps, tokens first", agent.BudgetLimits{MaxCost: 1, MaxTokens: 2000}, five, 1, "max_tokens_total", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := agent.NewBudget(tc.limits, "m", testPrices())
			if err != nil {
				t.Fatal(err)
			}
			n, err := runBudget(t, b, tc.usages)
			if n != tc.wantReqs {
				t.Errorf("made %d requests, want %d (err %v)", n, tc.wantReqs, err)
			}
			if tc.wantLimit == "" {
				if err != nil {
					t.Errorf("unexpected stop: %v", err)
				}
				return
			}
			if exit.Code(err) != exit.Limit {
				t.Errorf("exit code %d, want %d", exit.Code(err), exit.Limit)
			}
			var be *agent.BudgetError
			if !errors.As(err, &be) || be.Limit != tc.wantLimit || (be.Projected > 0) != tc.projected {
				t.Fatalf("error = %#v, want limit %s projected %v", err, tc.wantLimit, tc.projected)
			}
			if b.Requests() != n {
				t.Errorf("Requests() = %d, want %d", b.Requests(), n)
			}
		})
	}
}

func TestBudgetCountsFailedAttempts(t *testing.T) {
	t.Parallel()
	req := llm.Usage{InputTokens: 1000, OutputTokens: 100} // 1100 tokens, $0.003
	cut := llm.Usage{InputTokens: 1500, OutputTokens: 1}   // reported before the stream broke
	for _, tc := range []struct {
		name      string
		limits    agent.BudgetLimits
		first     bool // the cut is in the first request
		wantStop  bool
		projected float64
	}{
		// 1100 + 1501 spent; the retry is estimated at 1500 in + 100 out.
		{"tokens: retry would pass", agent.BudgetLimits{MaxTokens: 4000}, false, true, 4201},
		{"tokens: retry fits", agent.BudgetLimits{MaxTokens: 4201}, false, false, 0},
		// No finished request yet: the retry is estimated at the cut's usage.
		{"tokens: first request", agent.BudgetLimits{MaxTokens: 3000}, true, true, 3002},
		// $0.003 + $0.00301 spent; the retry at about $0.004.
		{"cost: retry would pass", agent.BudgetLimits{MaxCost: 0.009}, false, true, 0.01001},
		{"no caps", agent.BudgetLimits{}, false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := agent.NewBudget(tc.limits, "m", testPrices())
			if err != nil {
				t.Fatal(err)
			}
			if !tc.first {
				if _, err := runBudget(t, b, []llm.Usage{req}); err != nil {
					t.Fatal(err)
				}
			}
			before := b.Requests()
			err = b.AfterFailedAttempt(cut)
			if b.Requests() != before {
				t.Errorf("Requests() = %d after a failed attempt, want %d", b.Requests(), before)
			}
			want := cut
			if !tc.first {
				want = req.Add(cut)
			}
			if b.Spent() != want {
				t.Errorf("Spent() = %+v, want %+v", b.Spent(), want)
			}
			if !tc.wantStop {
				if err != nil {
					t.Errorf("unexpected stop: %v", err)
				}
				return
			}
			var be *agent.BudgetError
			if exit.Code(err) != exit.Limit || !errors.As(err, &be) {
				t.Fatalf("error = %v (exit %d), want a budget stop", err, exit.Code(err))
			}
			if d := be.Projected - tc.projected; d > 1e-9 || d < -1e-9 {
				t.Errorf("projected %v, want %v", be.Projected, tc.projected)
			}
		})
	}
}

func TestBudgetErrorText(t *testing.T) {
	t.Parallel()
	b, err := agent.NewBudget(agent.BudgetLimits{MaxCost: 0.007}, "m", testPrices())
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Usage{InputTokens: 1000, OutputTokens: 100}
	_, err = runBudget(t, b, []llm.Usage{req, req, req})
	const want = "reached --max-cost $0.0070: spent $0.0060, and the next request would bring it to about $0.0090"
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	if got := b.CostSummary(); got != "$0.0060" {
		t.Errorf("CostSummary = %q", got)
	}
	if got := b.Spent(); got != (llm.Usage{InputTokens: 2000, OutputTokens: 200}) {
		t.Errorf("Spent = %+v", got)
	}
}

func TestBudgetUnknownPrice(t *testing.T) {
	t.Parallel()
	_, err := agent.NewBudget(agent.BudgetLimits{MaxCost: 1}, "mystery-model", testPrices())
	if exit.Code(err) != exit.Usage {
		t.Fatalf("exit code %d (%v), want %d", exit.Code(err), err, exit.Usage)
	}
	for _, s := range []string{"--max-cost $1.00", `"mystery-model"`, `[prices."mystery-model"]`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %s", err, s)
		}
	}
	// Without a cost cap an unknown price is fine; the cost is just unknown.
	b, err := agent.NewBudget(agent.BudgetLimits{MaxTokens: 10}, "mystery-model", testPrices())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Cost(); ok {
		t.Error("Cost() claims to know the price")
	}
	if got := b.CostSummary(); !strings.Contains(got, "unknown") {
		t.Errorf("CostSummary = %q", got)
	}
}

func BenchmarkBudget(b *testing.B) {
	bud, err := agent.NewBudget(agent.BudgetLimits{MaxCost: 1e9, MaxTokens: 1 << 62}, "m", testPrices())
	if err != nil {
		b.Fatal(err)
	}
	u := llm.Usage{InputTokens: 1000, OutputTokens: 100, CacheReadTokens: 5000}
	b.ReportAllocs()
	for b.Loop() {
		if err := bud.BeforeRequest(); err != nil {
			b.Fatal(err)
		}
		if err := bud.AfterRequest(u); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNilBudget: a nil *Budget has no caps, and every method says so.
func TestNilBudget(t *testing.T) {
	t.Parallel()
	var b *agent.Budget
	u := llm.Usage{InputTokens: 1, OutputTokens: 1}
	for name, err := range map[string]error{
		"BeforeRequest":      b.BeforeRequest(),
		"AfterRequest":       b.AfterRequest(u),
		"AfterFailedAttempt": b.AfterFailedAttempt(u),
		"AfterSideRequest":   b.AfterSideRequest(u),
		"Reserve":            b.Reserve(agent.SubEstimate{Tokens: 1}, 1),
	} {
		if err != nil {
			t.Errorf("%s on a nil budget: %v", name, err)
		}
	}
	b.SetModel("m")
	b.Settle(agent.SubEstimate{}, u, agent.Price{}, false)
	if b.Spent() != (llm.Usage{}) || b.Requests() != 0 || b.ByModel() != nil {
		t.Error("a nil budget counted something")
	}
	if n, su := b.SubTotals(); n != 0 || su != (llm.Usage{}) {
		t.Errorf("SubTotals() = %d, %+v", n, su)
	}
	if _, ok := b.Cost(); ok {
		t.Error("Cost() of a nil budget is known")
	}
	if _, ok := b.RequestCost(u); ok {
		t.Error("RequestCost() of a nil budget is known")
	}
	if got := b.CostSummary(); got != "cost unknown" {
		t.Errorf("CostSummary() = %q", got)
	}
}
