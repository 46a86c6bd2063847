// Command rubichan is a headless coding agent for pipelines.
//
// main only wires the process to the runner: it hardens the process
// ([run.HardenProcess]: the key out of /proc, non-dumpable, a subreaper), turns SIGINT and SIGTERM
// into a cancelled context whose cause names the signal, makes a write on
// a closed stdout an error rather than a fatal SIGPIPE, hands the standard
// streams and arguments to [run.Main], and exits with the code it returns.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rubichan/rubichan/run"
)

func main() {
	// Keep the API key out of this process's environment block, memory
	// and /proc files, and adopt what the agent's commands leave behind;
	// best effort. It may re-execute the program, with the same args.
	_ = run.HardenProcess(os.Args)
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	// In line mode a SIGINT cancels the running turn only (or, at the
	// prompt, prints a hint): the chat takes it.
	intr := run.NewInterrupts()
	// The signals are taken in a goroutine: the first signal.Notify waits
	// for the runtime to start a thread of its own for signals (0.8 ms, a
	// tenth of line mode's start-up here), which this way happens beside
	// the rest of the start. Until then a signal has its default action,
	// as it has before main; a command waits for Listening before it runs
	// (line mode before its first run).
	go func() {
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		// Caught (and dropped) rather than fatal: a write on a stdout
		// nobody reads fails with EPIPE, and the runner stops cleanly
		// (exit 141).
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		intr.Listening()
		for sig := range sigs {
			if sig == os.Interrupt && intr.Deliver() {
				continue
			}
			cancel(run.SignalError{Signal: sig})
		}
	}()
	code := run.MainWith(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr, intr)
	signal.Stop(sigs)
	cancel(nil)
	os.Exit(code)
}
