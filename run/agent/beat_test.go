package agent

import (
	"context"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
)

type openedClient struct{ err error }

func (c openedClient) Stream(context.Context, llm.Request) (*llm.Stream, error) { return nil, c.err }

// TestBeatPhases: what a heartbeat waits for, as the request moves on —
// headers until the stream opens, then the first token, then the next;
// an event that is no content keeps the phase; a retry's wait has none.
func TestBeatPhases(t *testing.T) {
	t.Parallel()
	b := &beat{kick: make(chan struct{}, 1)}
	phase := func() string { b.mu.Lock(); defer b.mu.Unlock(); return b.phase }
	c := beatClient{openedClient{}, b}
	steps := []struct {
		do   func()
		want string
	}{
		{func() { c.Stream(context.Background(), llm.Request{}) }, waitFirst},
		{func() { b.event(llm.Event{Kind: llm.EventUsage}) }, waitFirst},
		{func() { b.event(llm.Event{Kind: llm.EventThinking}) }, waitNext},
		{func() { b.event(llm.Event{Kind: llm.EventUsage}) }, waitNext},
		{func() { b.progress("") }, ""},
		{func() { beatClient{openedClient{err: context.Canceled}, b}.Stream(context.Background(), llm.Request{}) }, ""},
		{func() { c.Stream(context.Background(), llm.Request{}) }, waitFirst},
		{func() { b.event(llm.Event{Kind: llm.EventText}) }, waitNext},
	}
	for i, s := range steps {
		s.do()
		if got := phase(); got != s.want {
			t.Fatalf("step %d: phase %q, want %q", i, got, s.want)
		}
	}
}

func TestWaitText(t *testing.T) {
	t.Parallel()
	for d, want := range map[string]string{"30s": "30s", "1m30s": "1m30s", "2m": "2m", "3m30s": "3m30s", "1h0m": "1h0m"} {
		dd, _ := time.ParseDuration(d)
		if got := waitText(dd); got != want {
			t.Errorf("waitText(%s) = %q, want %q", d, got, want)
		}
	}
}
