// Command rubichan is a headless coding agent for pipelines.
//
// main only wires the process to the runner: it hardens the process
// ([run.HardenProcess]: the key out of /proc, non-dumpable, a subreaper), turns SIGINT and SIGTERM
// into a cancelled context whose cause names the signal and makes a write on
// a closed stdout an error rather than a fatal SIGPIPE ([run.NotifySignals]), hands the standard
// streams and arguments to [run.MainWith], and exits with the code it returns.
//
// It is the program: nothing imports it.
package main

import (
	"context"
	"os"

	"github.com/rubichan/rubichan/run"
)

func main() {
	// Keep the API key out of this process's environment block, memory
	// and /proc files, and adopt what the agent's commands leave behind;
	// best effort. It may re-execute the program, with the same args.
	_ = run.HardenProcess(os.Args)
	sigs := run.NotifySignals(context.Background())
	code := run.MainWith(sigs.Context(), os.Args, os.Stdin, os.Stdout, os.Stderr, sigs.Interrupts())
	sigs.Stop()
	os.Exit(code)
}
