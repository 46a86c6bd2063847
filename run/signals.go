package run

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/linemode"
)

// Signals turns the process's SIGINT and SIGTERM into a cancelled context
// whose cause is a [exit.SignalError] naming the signal, and makes a write on a
// closed stdout an error (EPIPE) rather than a fatal SIGPIPE. In line mode
// a SIGINT goes to the chat first (see [linemode.Interrupts]): it cancels the
// running turn only, or at the prompt prints a hint. main makes one with
// [NotifySignals], runs [MainWith] with its Context and Interrupts, then
// calls Stop.
type Signals struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	ch     chan os.Signal
	intr   *linemode.Interrupts
}

// NotifySignals starts taking the process's signals for a run under
// parent. They are taken in a goroutine: the first signal.Notify waits
// for the runtime to start a thread of its own for signals (0.8 ms, a
// tenth of line mode's start-up), which this way happens beside the rest
// of the start. Until then a signal has its default action, as it has
// before main; a command waits for [Interrupts.Listening] before it runs
// (line mode before its first run).
func NotifySignals(parent context.Context) *Signals {
	ctx, cancel := context.WithCancelCause(parent)
	s := &Signals{ctx: ctx, cancel: cancel, ch: make(chan os.Signal, 2), intr: linemode.NewInterrupts()}
	go s.take()
	return s
}

// take listens for the signals and hands each on, until the process ends.
func (s *Signals) take() {
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	// Caught (and dropped) rather than fatal: a write on a stdout
	// nobody reads fails with EPIPE, and the runner stops cleanly
	// (exit 141).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	s.intr.Listening()
	for sig := range s.ch {
		if sig == os.Interrupt && s.intr.Deliver() {
			continue
		}
		s.cancel(exit.SignalError{Signal: sig})
	}
}

// Context is cancelled with a [exit.SignalError] cause by SIGINT (unless line
// mode takes it) or SIGTERM.
func (s *Signals) Context() context.Context { return s.ctx }

// Interrupts hands SIGINT to line mode; pass it to [MainWith].
func (s *Signals) Interrupts() *linemode.Interrupts { return s.intr }

// Stop stops taking SIGINT and SIGTERM and releases the context.
func (s *Signals) Stop() {
	signal.Stop(s.ch)
	s.cancel(nil)
}

// MainWith is [Main] with the process's SIGINT offered to line mode first
// (see [linemode.Interrupts]).
func MainWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, intr *linemode.Interrupts) int {
	env := processEnvironment()
	env.interrupts = intr
	return runMain(ctx, args, stdin, stdout, stderr, env)
}
