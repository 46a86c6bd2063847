package agent

import (
	"testing"

	"github.com/rubichan/rubichan/llm"
)

func TestCompactThreshold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    Compact
		want int
	}{
		{Compact{Window: 8000, MaxOutput: 1000}, 5600},
		{Compact{Window: 8000, MaxOutput: 1000, At: 0.5}, 3500},
		{Compact{Window: 200_000, MaxOutput: 64_000}, int(0.8 * float64(200_000-llm.DefaultAnthropicMaxTokens))},
		{Compact{Window: 8000, MaxOutput: 64_000}, 3200}, // the reserve is at most half the window
	} {
		if got := tc.c.threshold(); got != tc.want {
			t.Errorf("%+v: %d, want %d", tc.c, got, tc.want)
		}
	}
}

// TestCompactionEmptySummary: a summary request that comes back without
// text ends the run (exit 5) with compaction's own words, and is not
// retried.
