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
