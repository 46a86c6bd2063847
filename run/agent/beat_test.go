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
	b := &beat{}
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

// TestBeatRestartsAfterProgress: progress only marks the watch; the wait
// that saw it ends without a notice and starts again, and the silence
// after it gets the notices, at doubling waits. The fake timer tells the
// test each wait the watch starts, so each step is known to be done.
func TestBeatRestartsAfterProgress(t *testing.T) {
	t.Parallel()
	fire, asked := make(chan time.Time), make(chan time.Duration)
	notices := make(chan string, 10)
	after := func(d time.Duration) <-chan time.Time {
		asked <- d
		return fire
	}
	b := startBeat(context.Background(), Heartbeat{First: 30 * time.Second, After: after}, 1, func(ev Event) { notices <- ev.Text })
	waiting := func() time.Duration {
		t.Helper()
		select {
		case d := <-asked:
			return d
		case <-time.After(10 * time.Second):
			t.Fatal("the watch does not wait")
			return 0
		}
	}
	wait := waiting()
	// step ends the wait under way and returns the notice it gave, if
	// any, and the next wait.
	step := func() (notice string, next time.Duration) {
		t.Helper()
		fire <- time.Time{}
		next = waiting() // the watch is done with the last wait
		select {
		case notice = <-notices:
		default:
		}
		return notice, next
	}
	b.event(llm.Event{Kind: llm.EventText})
	b.event(llm.Event{Kind: llm.EventText})
	for i, want := range []struct {
		notice string
		next   time.Duration
	}{
		{"", 30 * time.Second},
		{"waiting for the model: no next token after 30s", time.Minute},
		{"waiting for the model: no next token after 1m30s", 2 * time.Minute},
	} {
		n, next := step()
		if n != want.notice || next != want.next {
			t.Fatalf("wait %d (%v): notice %q, next wait %v; want %q, %v", i, wait, n, next, want.notice, want.next)
		}
		wait = next
	}
	b.event(llm.Event{Kind: llm.EventUsage})
	if n, next := step(); n != "" || next != 30*time.Second {
		t.Fatalf("the wait that saw more progress: notice %q, next wait %v; want none, 30s", n, next)
	}
	if n, _ := step(); n != "waiting for the model: no next token after 30s" {
		t.Fatalf("the silence after it: notice %q, want the first wait's", n)
	}
	b.cancel()
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch does not stop")
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
