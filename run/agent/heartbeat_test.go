package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
)

// TestHeartbeat: a model that says nothing gets a notice after the first
// wait, then at doubling waits, naming how long and what for; the fake
// timer makes the waits instant. The run is then interrupted.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		turn  llmtest.Turn
		after int // text pieces before the silence
		want  []string
	}{
		"headers": {llmtest.Turn{Fault: &llmtest.Fault{Silent: true}}, 0, []string{
			"waiting for the model: no response headers after 30s",
			"waiting for the model: no response headers after 1m30s",
			"waiting for the model: no response headers after 3m30s",
		}},
		"next token": {llmtest.Turn{Text: []string{"Half", " never"}, Fault: &llmtest.Fault{After: 1, Stall: true}}, 1, []string{
			"waiting for the model: no next token after 30s",
			"waiting for the model: no next token after 1m30s",
			"waiting for the model: no next token after 3m30s",
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			// The fake timer: every wait it is asked for ends when the
			// test calls the function it was given.
			timers := make(chan func(), 16)
			after := func(_ time.Duration, f func()) func() bool {
				timers <- f
				return func() bool { return true }
			}
			var mu sync.Mutex
			notices, delta := make(chan string, 10), make(chan struct{})
			emit := func(ev agent.Event) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case ev.Kind == agent.EventNotice && strings.HasPrefix(ev.Text, "waiting"):
					notices <- ev.Text
				case ev.Kind == agent.EventTextDelta:
					close(delta)
				}
			}
			var got []string
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer cancel(errors.New("test over"))
				if c.after != 0 {
					select { // the stream got that far
					case <-delta:
					case <-time.After(10 * time.Second):
						return
					}
				}
				// A fire the watch spends on restarting its wait after
				// progress gives no notice: fire again.
				for i := 0; i < 100 && len(got) < len(c.want); i++ {
					select {
					case end := <-timers:
						end() // a notice it gives is emitted before it returns
					case <-time.After(10 * time.Second):
						return
					}
					select {
					case n := <-notices:
						got = append(got, n)
					default:
					}
				}
			}()
			agenttest.Run(t, ctx, llmtest.Script{Turns: []llmtest.Turn{c.turn}}, agent.Options{
				Heartbeat: agent.Heartbeat{First: 30 * time.Second, AfterFunc: after}, Emit: emit,
			})
			<-done
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
