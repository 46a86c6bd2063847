package run

import (
	"context"
	"io"
	"os"
	"sync"
)

// Interrupts hands SIGINT to line mode, which takes it for itself: Ctrl-C
// during a run cancels that run, at the prompt it prints a hint, and the
// process goes on. main creates one, passes it to [MainWith] and, for each
// SIGINT, calls [Interrupts.Deliver]; when that returns false (no chat is
// running) main cancels the run's context as before. It is safe for
// concurrent use.
type Interrupts struct {
	mu sync.Mutex
	ch chan struct{} // non-nil while a chat takes SIGINT
}

// NewInterrupts returns an Interrupts no chat has claimed yet.
func NewInterrupts() *Interrupts { return &Interrupts{} }

// Deliver hands one SIGINT to the running chat and reports whether one
// took it.
func (i *Interrupts) Deliver() bool {
	if i == nil {
		return false
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.ch == nil {
		return false
	}
	select {
	case i.ch <- struct{}{}:
	default: // one is already waiting
	}
	return true
}

// claim makes the chat the taker of SIGINT until release is called. On a
// nil Interrupts the channel never receives.
func (i *Interrupts) claim() (<-chan struct{}, func()) {
	if i == nil {
		return nil, func() {}
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	ch := make(chan struct{}, 1)
	i.ch = ch
	return ch, func() {
		i.mu.Lock()
		i.ch = nil
		i.mu.Unlock()
	}
}

// MainWith is [Main] with the process's SIGINT offered to line mode first
// (see [Interrupts]).
func MainWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, intr *Interrupts) int {
	env := processEnvironment()
	env.interrupts = intr
	return runMain(ctx, args, stdin, stdout, stderr, env)
}

// errRunInterrupted is the cause that ends a line-mode run on Ctrl-C: the
// chat goes on.
var errRunInterrupted = SignalError{Signal: os.Interrupt}
