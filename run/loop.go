package run

import (
	"context"
	"io"
)

func runExec(ctx context.Context, cfg execConfig, stdin io.Reader, stdout, stderr io.Writer, env environment) error {
	return exitf(ExitFailure, "exec: not wired yet")
}
