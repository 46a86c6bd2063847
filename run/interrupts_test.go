package run

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/linemode"
)

// A command waits until main listens to the signals (so that a broken
// stdout is EPIPE, never a fatal SIGPIPE); a piped chat does too, before
// it reads its first line.
func TestCommandsWaitForTheSignals(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"rubichan", "version"},
		{"rubichan", "chat", "--no-session", "--cwd", t.TempDir()},
	} {
		intr := linemode.NewInterrupts()
		env := fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789", "HOME": t.TempDir()})
		env.Environ = func() []string { return []string{"PATH=/usr/bin:/bin"} }
		env.interrupts = intr
		done := make(chan int, 1)
		go func() {
			done <- runMain(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard, env)
		}()
		select {
		case code := <-done:
			t.Fatalf("%q ended (%d) before the signals were listened to", args, code)
		case <-time.After(time.Second):
		}
		intr.Listening()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("%q: exit %d", args, code)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q did not end once the signals were listened to", args)
		}
	}
}
