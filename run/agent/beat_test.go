package agent

import (
	"context"
	"strings"
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

// armed is a wait a fake timer was asked for: its length and what ends it.
type armed struct {
	d time.Duration
	f func()
}

// fakeAfterFunc is a Heartbeat.AfterFunc whose timers never fire by
// themselves: each is sent on the channel returned, for the test to end.
func fakeAfterFunc() (func(time.Duration, func()) func() bool, chan armed) {
	timers := make(chan armed, 16)
	return func(d time.Duration, f func()) func() bool {
		timers <- armed{d, f}
		return func() bool { return true }
	}, timers
}

// TestBeatRestartsAfterProgress: progress only marks the watch; the wait
// that saw it ends without a notice and starts again, and the silence
// after it gets the notices, at doubling waits; once stopped, a wait
// that ends says nothing and starts no other. The fake timer's waits are
// ended by the test, on its own goroutine.
func TestBeatRestartsAfterProgress(t *testing.T) {
	t.Parallel()
	after, timers := fakeAfterFunc()
	var notices []string
	b := startBeat(context.Background(), Heartbeat{First: 30 * time.Second, AfterFunc: after}, 1, func(ev Event) { notices = append(notices, ev.Text) })
	next := func() armed {
		t.Helper()
		select {
		case a := <-timers:
			return a
		default:
			t.Fatal("the watch started no wait")
			return armed{}
		}
	}
	cur := next()
	// step ends the wait under way and returns the notice it gave, if
	// any, and the next wait's length.
	step := func() (string, time.Duration) {
		t.Helper()
		notices = nil
		cur.f()
		cur = next()
		return strings.Join(notices, "|"), cur.d
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
		if n, next := step(); n != want.notice || next != want.next {
			t.Fatalf("wait %d: notice %q, next wait %v; want %q, %v", i, n, next, want.notice, want.next)
		}
	}
	b.event(llm.Event{Kind: llm.EventUsage})
	if n, next := step(); n != "" || next != 30*time.Second {
		t.Fatalf("the wait that saw more progress: notice %q, next wait %v; want none, 30s", n, next)
	}
	if n, _ := step(); n != "waiting for the model: no next token after 30s" {
		t.Fatalf("the silence after it: notice %q, want the first wait's", n)
	}
	b.stop()
	notices = nil
	cur.f()
	if len(notices) != 0 || len(timers) != 0 {
		t.Fatalf("a wait ended after stop: notices %q, %d more waits started", notices, len(timers))
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
