// Command rubichan is a headless coding agent for pipelines.
//
// main only wires the process to the runner: it makes the process
// non-dumpable ([run.HardenProcess]), turns SIGINT and SIGTERM
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
	// Keep the commands the agent runs out of this process's memory and
	// /proc files (the API key is in its environment); best effort.
	_ = run.HardenProcess()
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// Caught (and dropped) rather than fatal: a write on a stdout nobody
	// reads fails with EPIPE, and the runner stops cleanly (exit 141).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go func() {
		for sig := range sigs {
			cancel(run.SignalError{Signal: sig})
		}
	}()
	code := run.Main(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	cancel(nil)
	os.Exit(code)
}
