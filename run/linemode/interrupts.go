package linemode

import (
	"os"
	"sync"

	"github.com/rubichan/rubichan/run/exit"
)

// Interrupts hands SIGINT to line mode, which takes it for itself: Ctrl-C
// during a run cancels that run, at the prompt it prints a hint, and the
// process goes on. run.NotifySignals creates one, which main passes to
// run.MainWith, and for each SIGINT calls [Interrupts.Deliver]; when that
// returns false (no chat is running) it cancels the run's context as
// before. It is safe for concurrent use.
//
// run.NotifySignals takes the signals in a goroutine (the first
// signal.Notify waits for a thread the runtime starts for signals) and
// calls [Interrupts.Listening] once it does: a command waits for that before
// it runs, so that a write on a broken stdout is EPIPE, not a fatal
// SIGPIPE; line mode waits itself, before its terminal goes raw and
// before its first run, so that its first prompt need not wait.
type Interrupts struct {
	mu        sync.Mutex
	ch        chan struct{} // non-nil while a chat takes SIGINT
	listening chan struct{} // closed by Listening
	once      sync.Once
}

// NewInterrupts returns an Interrupts no chat has claimed yet, whose
// signals are not listened to yet.
func NewInterrupts() *Interrupts { return &Interrupts{listening: make(chan struct{})} }

// Listening says main now catches SIGINT, SIGTERM and SIGPIPE.
func (i *Interrupts) Listening() { i.once.Do(func() { close(i.listening) }) }

// AwaitListening waits until main catches the signals. A nil Interrupts
// (no main, as in tests) does not wait.
func (i *Interrupts) AwaitListening() {
	if i != nil {
		<-i.listening
	}
}

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

// errRunInterrupted is the cause that ends a line-mode run on Ctrl-C: the
// chat goes on.
var errRunInterrupted = exit.SignalError{Signal: os.Interrupt}
