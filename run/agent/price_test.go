package agent_test

import (
	"math"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
)

func TestPriceCost(t *testing.T) {
	t.Parallel()
	p := agent.Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
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
		if got := p.Cost(tc.u); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Cost(%+v) = %v, want %v", tc.u, got, tc.want)
		}
	}
}
