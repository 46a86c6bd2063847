package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rubichan/rubichan/llm"
)

// DefaultHeartbeat is the first wait of a front end's [Heartbeat]: past
// it, a silent model gets a notice.
const DefaultHeartbeat = 30 * time.Second

// Heartbeat says when the engine notes, as an [EventNotice], that it is
// still waiting for the model: after First without data, then after twice
// the previous wait each time ("waiting for the model: no response headers
// after 30s", "… after 1m30s"). The zero Heartbeat sends none.
type Heartbeat struct {
	First time.Duration // 0: no heartbeat
	// AfterFunc runs f on a goroutine of its own once d has passed, and
	// returns a function that cancels that, reporting whether it did
	// (f had not started), as [time.AfterFunc] and [time.Timer.Stop] do;
	// nil: time.AfterFunc. Tests pass a fake.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
}

// The phases of a model request a heartbeat names.
const (
	waitHeaders = "response headers"
	waitFirst   = "first token"
	waitNext    = "next token"
)

// beat watches one request for silence: a timer, and no goroutine of
// its own until a wait ends. Its methods are safe for concurrent use: the
// loop reports progress, the timer's function emits.
//
// Progress only marks the watch (a stream's every event does): the wait
// that ends having seen progress starts again instead of giving a
// notice. Waking a watcher at each event cost the loop a goroutine
// hand-off and a new timer per event, and the watcher's own goroutine two
// more hand-offs per request (issue 41); the price is that a notice may
// come up to one wait later than the silence began, and says how long at
// least.
type beat struct {
	hb   Heartbeat
	ctx  context.Context
	emit func(Event)
	turn int

	mu      sync.Mutex // held by a wait's end throughout, so that stop waits for it
	phase   string     // "" while no request is outstanding (a retry's wait)
	moved   bool       // progress came during the current wait
	wait    time.Duration
	waited  time.Duration // silence so far, in whole waits
	cancel  func() bool   // the current wait's timer
	stopped bool
}

// startBeat starts watching a request of turn; nil when hb is off. Stop
// it with [beat.stop].
func startBeat(ctx context.Context, hb Heartbeat, turn int, emit func(Event)) *beat {
	if hb.First <= 0 {
		return nil
	}
	if hb.AfterFunc == nil {
		hb.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	b := &beat{hb: hb, ctx: ctx, emit: emit, turn: turn, phase: waitHeaders, wait: hb.First}
	b.mu.Lock()
	b.cancel = hb.AfterFunc(b.wait, b.waitEnded)
	b.mu.Unlock()
	return b
}

// waitEnded ends a wait: without progress during it, a notice, and the
// next wait twice as long; with progress, the first wait again.
func (b *beat) waitEnded() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	if b.moved {
		b.moved, b.wait, b.waited = false, b.hb.First, 0
	} else {
		b.waited += b.wait
		if b.phase != "" && b.ctx.Err() == nil {
			b.emit(Event{Kind: EventNotice, Turn: b.turn, Text: fmt.Sprintf("waiting for the model: no %s after %s", b.phase, waitText(b.waited))})
		}
		b.wait *= 2
	}
	b.cancel = b.hb.AfterFunc(b.wait, b.waitEnded)
}

// progress says the request moved on to phase ("" for none: a retry's
// wait), and starts the waits again.
func (b *beat) progress(phase string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.phase, b.moved = phase, true
	b.mu.Unlock()
}

// event reports an event of the stream: content moves the phase to the
// next token; any event is progress.
func (b *beat) event(ev llm.Event) {
	if b == nil {
		return
	}
	switch ev.Kind {
	case llm.EventText, llm.EventThinking, llm.EventToolUse, llm.EventServerTool:
		b.progress(waitNext)
	default:
		b.mu.Lock()
		phase := b.phase
		b.mu.Unlock()
		b.progress(phase)
	}
}

// stop ends the watch; a wait that is ending is waited for, and no
// notice comes after stop returns.
func (b *beat) stop() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.stopped = true
	cancel := b.cancel
	b.mu.Unlock()
	cancel()
}

// waitText is d as "30s", "1m30s", "2m".
func waitText(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return d.String()
	}
	s := d.String()
	if len(s) > 3 && s[len(s)-3:] == "m0s" {
		s = s[:len(s)-2]
	}
	return s
}

// beatClient marks the response headers of each attempt as progress.
type beatClient struct {
	Client
	b *beat
}

// Stream is the client's; once the stream opens (the headers came) the
// wait is for the first token.
func (c beatClient) Stream(ctx context.Context, req llm.Request) (*llm.Stream, error) {
	c.b.mu.Lock()
	c.b.phase = waitHeaders // the wait began at the start or the retry
	c.b.mu.Unlock()
	s, err := c.Client.Stream(ctx, req)
	if err == nil {
		c.b.progress(waitFirst)
	} else {
		c.b.progress("")
	}
	return s, err
}
