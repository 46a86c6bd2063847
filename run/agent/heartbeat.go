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
	// After returns a channel that receives after d; nil: [time.After].
	// Tests pass a fake.
	After func(d time.Duration) <-chan time.Time
}

// The phases of a model request a heartbeat names.
const (
	waitHeaders = "response headers"
	waitFirst   = "first token"
	waitNext    = "next token"
)

// beat watches one request for silence. Its methods are safe for
// concurrent use: the loop reports progress, its goroutine emits.
//
// Progress only marks the watch (a stream's every event does): the
// goroutine looks at the mark when its wait ends, and a wait that saw
// progress starts again instead of giving a notice. Waking the goroutine
// at each event cost the loop a goroutine hand-off and a new timer per
// event (issue 41); the price is that a notice may come up to one wait
// later than the silence began, and says how long at least.
type beat struct {
	hb     Heartbeat
	emit   func(Event)
	turn   int
	mu     sync.Mutex
	phase  string // "" while no request is outstanding (a retry's wait)
	moved  bool   // progress came during the current wait
	cancel context.CancelFunc
	done   chan struct{}
}

// startBeat starts watching a request of turn; nil when hb is off. Stop
// it with [beat.stop].
func startBeat(ctx context.Context, hb Heartbeat, turn int, emit func(Event)) *beat {
	if hb.First <= 0 {
		return nil
	}
	if hb.After == nil {
		hb.After = time.After
	}
	ctx, cancel := context.WithCancel(ctx)
	b := &beat{hb: hb, emit: emit, turn: turn, phase: waitHeaders, cancel: cancel, done: make(chan struct{})}
	go b.run(ctx)
	return b
}

// run emits a notice at each wait that passes without progress.
func (b *beat) run(ctx context.Context) {
	defer close(b.done)
	wait, waited := b.hb.First, time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.hb.After(wait):
		}
		b.mu.Lock()
		phase, moved := b.phase, b.moved
		b.moved = false
		b.mu.Unlock()
		if moved { // progress came during the wait: it starts again
			wait, waited = b.hb.First, 0
			continue
		}
		waited += wait
		if phase != "" && ctx.Err() == nil {
			b.emit(Event{Kind: EventNotice, Turn: b.turn, Text: fmt.Sprintf("waiting for the model: no %s after %s", phase, waitText(waited))})
		}
		wait *= 2
	}
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

// stop ends the watch and waits for its goroutine.
func (b *beat) stop() {
	if b == nil {
		return
	}
	b.cancel()
	<-b.done
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
