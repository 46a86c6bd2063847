package acp

import (
	"encoding/json"
	"io"
	"testing"
	"time"
)

// TestDuplicateResponse: a client that answers one request twice — or
// answers a request whose caller has given up (a cancelled prompt) — must
// not stall the reader: deliver hands the first answer over and drops the
// rest, so the next messages are still read.
func TestDuplicateResponse(t *testing.T) {
	c := newConn(io.Discard)
	// A request as it stands when its caller gave up (the prompt was
	// cancelled) but had not yet unregistered it: its channel unread.
	c.mu.Lock()
	c.pending["1"] = make(chan message, 1)
	c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 3; i++ {
			c.deliver(message{ID: json.RawMessage("1"), Result: json.RawMessage(`{"outcome":{"outcome":"cancelled"}}`)})
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("deliver blocked on a second answer to one request: the reader is stuck")
	}
}
