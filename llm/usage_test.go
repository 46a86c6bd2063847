package llm

import "testing"

// Minus undoes Add, field by field.
func TestUsageMinusUndoesAdd(t *testing.T) {
	t.Parallel()
	u := Usage{InputTokens: 10, OutputTokens: 20, CacheCreationTokens: 30, CacheReadTokens: 40, ReasoningTokens: 50}
	v := Usage{InputTokens: 1, OutputTokens: 2, CacheCreationTokens: 3, CacheReadTokens: 4, ReasoningTokens: 5}
	if got := u.Add(v).Minus(v); got != u {
		t.Fatalf("u+v-v = %+v, want %+v", got, u)
	}
	if got := u.Minus(u); got != (Usage{}) {
		t.Fatalf("u-u = %+v, want zero", got)
	}
}
