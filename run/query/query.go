package query

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/subquery"
)

// Options are the parsed flags of one `rubichan query` and what it reads
// of the process to find whom to ask.
type Options struct {
	Prompt      string // the arguments; "" with --batch
	Model       string // --model; "": the run's sub-model or the provider's model
	MaxTokens   int    // --max-tokens; 0: the default
	System      string // --system
	Batch       bool   // --batch
	Concurrency int    // --concurrency: requests in flight in a fan-out
	Split       string // --split: the absolute path of the file
	Chunk       int64  // --chunk
	Overlap     int64  // --overlap

	// Env is the process's environment: the run's sub-query socket and
	// token, and the provider key variables of a query by itself.
	Env harness.Env
	// Config returns the configuration options of a query by itself in
	// the workspace dir (the command line's configuration flags); it is
	// not called inside a run.
	Config func(dir string) config.Options
}

// IO are the standard streams of one `rubichan query`.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Run runs one `rubichan query`: a single request, --batch or --split,
// through the run's socket when the environment names one, else to the
// configured provider.
func Run(ctx context.Context, q Options, streams IO) error {
	ak, err := newAsker(q)
	if err != nil {
		return err
	}
	return run(ctx, q, ak, streams.Stdin, streams.Stdout, streams.Stderr)
}

// queryStdinMax bounds the material `rubichan query` reads from stdin.
const queryStdinMax = harness.SubqueryMaterialMax

// run runs one `rubichan query`: a single request, --batch or
// --split, with ak.
func run(ctx context.Context, q Options, ak asker, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case q.Batch:
		return fanOut(ctx, q, ak, batchJobs(stdin, q), stdout, stderr)
	case q.Split != "":
		return fanOut(ctx, q, ak, splitJobs(q), stdout, stderr)
	}
	req := q.request()
	if input.StdinUsable(stdin) {
		b, err := io.ReadAll(io.LimitReader(stdin, queryStdinMax+1))
		if err != nil {
			return fmt.Errorf("query: read stdin: %w", err)
		}
		if len(b) > queryStdinMax {
			return exit.Usagef("query: standard input is larger than %s; use --split on a file", input.FormatBytes(queryStdinMax))
		}
		req.Input = string(b)
	}
	s, err := ak.open(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	resp, err := s.ask(ctx, req)
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return exit.CodeError{Code: resp.Error.ExitCode(), Err: fmt.Errorf("query: %s", resp.Error.Message)}
	}
	text := resp.Text
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if sink.IsTerminal(stdout) {
		// As exec's answer: on a terminal the model's control
		// characters are shown, not sent.
		text = agent.Shown(text)
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		return exit.StdoutError{Err: err}
	}
	return nil
}

// request is the request the flags make, without material.
func (q Options) request() subquery.Request {
	return subquery.Request{Prompt: q.Prompt, Model: q.Model, MaxTokens: q.MaxTokens, System: q.System}
}
