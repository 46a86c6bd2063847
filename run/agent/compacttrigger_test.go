package agent

import (
	"context"
	"testing"

	"github.com/rubichan/rubichan/llm"
)

// TestCompactTriggerBoundary: the loop compacts only when the estimate
// passes the threshold; an estimate exactly at it does not compact
// (mutant: "<=" turned into "<" in compactIfNeeded). A compaction with
// nothing to summarise says so once, which is what the test observes.
func TestCompactTriggerBoundary(t *testing.T) {
	t.Parallel()
	c := Compact{Window: 8000, MaxOutput: 1000}
	for _, tc := range []struct {
		name    string
		over    int // tokens past the threshold
		compact bool
	}{
		{"below", -1, false},
		{"exactly at", 0, false},
		{"one past", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var events []Event
			l := New(nil, Options{Limits: Limits{MaxTurns: 1}, Compact: c,
				Emit: func(ev Event) { events = append(events, ev) }})
			l.messages = []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("do it")}}}
			l.est.measure(l.messages)
			l.est.sent()
			l.est.lastInput = c.threshold() + tc.over
			if err := l.compactIfNeeded(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := len(events) > 0; got != tc.compact {
				t.Errorf("compaction tried %v (events %+v), want %v", got, events, tc.compact)
			}
		})
	}
}
