package run

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/config"
)

// testPrices prices "m" at $2 input and $10 output per million tokens, so a
// request of 1000 input and 100 output tokens costs $0.003.
func testPrices() map[string]config.Price {
	return map[string]config.Price{"m": {Input: 2, Output: 10, CacheRead: 0.2, CacheWrite: 2.5}}
}

// runBudget plays requests of the given usage through a budget the way the
// loop does and returns how many requests were made and the error that
// stopped it (nil if all were made).
func runBudget(t *testing.T, b *Budget, usages []llm.Usage) (int, error) {
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
		limits    config.Limits
		usages    []llm.Usage
		wantReqs  int
		wantLimit string
		projected bool
	}{
		{"no caps", config.Limits{}, five, 5, "", false},
		// After 2 requests $0.006 is spent; a third would bring it to $0.009.
		{"cost stops before the third", config.Limits{MaxCost: 0.007}, five, 2, "max_cost", true},
		{"cost exactly reachable", config.Limits{MaxCost: 0.009}, five, 3, "max_cost", true},
		{"cost roomy", config.Limits{MaxCost: 1}, five, 5, "", false},
		// After 3 requests 3300 tokens; a fourth would make 4400.
		{"tokens stop before the fourth", config.Limits{MaxTokensTotal: 4000}, five, 3, "max_tokens_total", true},
		{"tokens exactly", config.Limits{MaxTokensTotal: 5500}, five, 5, "", false},
		// One request larger than the cap: stopped after it, not before.
		{"first request passes the cap", config.Limits{MaxTokensTotal: 500}, five, 1, "max_tokens_total", false},
		// A sudden big request passes the cap after it is made.
		{"jump after", config.Limits{MaxCost: 0.05}, []llm.Usage{req, {InputTokens: 30000}, req}, 2, "max_cost", false},
		{"both caps, tokens first", config.Limits{MaxCost: 1, MaxTokensTotal: 2000}, five, 1, "max_tokens_total", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := newBudget(tc.limits, "m", testPrices())
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
			if exitCode(err) != exitLimit {
				t.Errorf("exit code %d, want %d", exitCode(err), exitLimit)
			}
			var be *budgetError
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
		limits    config.Limits
		first     bool // the cut is in the first request
		wantStop  bool
		projected float64
	}{
		// 1100 + 1501 spent; the retry is estimated at 1500 in + 100 out.
		{"tokens: retry would pass", config.Limits{MaxTokensTotal: 4000}, false, true, 4201},
		{"tokens: retry fits", config.Limits{MaxTokensTotal: 4201}, false, false, 0},
		// No finished request yet: the retry is estimated at the cut's usage.
		{"tokens: first request", config.Limits{MaxTokensTotal: 3000}, true, true, 3002},
		// $0.003 + $0.00301 spent; the retry at about $0.004.
		{"cost: retry would pass", config.Limits{MaxCost: 0.009}, false, true, 0.01001},
		{"no caps", config.Limits{}, false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := newBudget(tc.limits, "m", testPrices())
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
			var be *budgetError
			if exitCode(err) != exitLimit || !errors.As(err, &be) {
				t.Fatalf("error = %v (exit %d), want a budget stop", err, exitCode(err))
			}
			if d := be.Projected - tc.projected; d > 1e-9 || d < -1e-9 {
				t.Errorf("projected %v, want %v", be.Projected, tc.projected)
			}
		})
	}
}

func TestBudgetErrorText(t *testing.T) {
	t.Parallel()
	b, err := newBudget(config.Limits{MaxCost: 0.007}, "m", testPrices())
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
	_, err := newBudget(config.Limits{MaxCost: 1}, "mystery-model", testPrices())
	if exitCode(err) != exitUsage {
		t.Fatalf("exit code %d (%v), want %d", exitCode(err), err, exitUsage)
	}
	for _, s := range []string{"--max-cost $1.00", `"mystery-model"`, `[prices."mystery-model"]`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %s", err, s)
		}
	}
	// Without a cost cap an unknown price is fine; the cost is just unknown.
	b, err := newBudget(config.Limits{MaxTokensTotal: 10}, "mystery-model", testPrices())
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
	bud, err := newBudget(config.Limits{MaxCost: 1e9, MaxTokensTotal: 1 << 62}, "claude-sonnet-5-5", config.DefaultPrices())
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
func TestPriceCost(t *testing.T) {
	t.Parallel()
	p := config.Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
	for _, tc := range []struct {
		u    llm.Usage
		want float64
	}{
		{llm.Usage{}, 0},
		{llm.Usage{InputTokens: 1_000_000}, 3},
		{llm.Usage{OutputTokens: 1_000_000}, 15},
		{llm.Usage{CacheReadTokens: 1_000_000}, 0.30},
		{llm.Usage{CacheCreationTokens: 1_000_000}, 3.75},
		{llm.Usage{InputTokens: 2000, OutputTokens: 500, CacheReadTokens: 10000, CacheCreationTokens: 1000}, 0.006 + 0.0075 + 0.003 + 0.00375},
	} {
		if got := priceCost(p, tc.u); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Cost(%+v) = %v, want %v", tc.u, got, tc.want)
		}
	}
}
