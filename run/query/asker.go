package query

import (
	"context"
	"errors"
	"os"
	"runtime/debug"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/subquery"
)

// asker sends sub-queries: through the run's socket, or to the provider.
// open returns a sender for one worker.
type asker interface {
	open(ctx context.Context) (sender, error)
}

// sender sends one worker's requests in turn.
type sender interface {
	ask(ctx context.Context, req subquery.Request) (subquery.Response, error)
	close()
}

// newAsker returns the run's socket when the environment names one, else
// the configured provider with its key.
func newAsker(q Options) (asker, error) {
	if path, ok := q.Env.LookupEnv(subquery.SocketEnv); ok && path != "" {
		// A fan-out's command holds little (the run reads the chunks):
		// collect sooner, so that each stays near the runtime's floor.
		debug.SetGCPercent(20)
		token, _ := q.Env.LookupEnv(subquery.TokenEnv)
		// The command's trace context goes with each request: the run
		// records the sub-query as a child of the span that started it.
		tp, _ := q.Env.LookupEnv("TRACEPARENT")
		return socketAsker{path: path, token: token, traceparent: tp}, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	lc, err := harness.LoadConfig(q.Config(dir))
	if err != nil {
		return nil, exit.ConfigError{Err: err}
	}
	rp, err := harness.ResolveProvider(lc, q.Env.LookupEnv)
	if err != nil {
		return nil, exit.ConfigError{Err: err}
	}
	// The answer and its errors go to a person or a pipe: a key the
	// server echoes is redacted, as in a run's output.
	red := agent.NewRedactor(harness.Secrets(rp, lc, harness.MCPPlace{}, q.Env))
	return &directAsker{model: rp.Model, client: harness.NewProviderClient(rp, harness.StreamLimitsOf(lc.Limits), nil), red: red}, nil
}

// socketAsker sends through the run: one connection per worker.
type socketAsker struct{ path, token, traceparent string }

func (s socketAsker) open(ctx context.Context) (sender, error) {
	cl, err := subquery.Dial(ctx, s.path, s.token)
	if err != nil {
		return nil, exit.CodeError{Code: exit.Failure, Err: err}
	}
	return socketSender{cl, s.traceparent}, nil
}

type socketSender struct {
	cl          *subquery.Client
	traceparent string
}

func (s socketSender) ask(ctx context.Context, req subquery.Request) (subquery.Response, error) {
	req.Traceparent = s.traceparent
	return s.cl.Ask(ctx, req)
}

func (s socketSender) close() { s.cl.Close() }

// directAsker asks the configured provider itself, reading file ranges
// itself: a plain pipeline primitive outside a run.
type directAsker struct {
	model  string
	client agent.Client
	red    *agent.Redactor // the key and credential header values
}

func (d *directAsker) open(context.Context) (sender, error) { return d, nil }

func (d *directAsker) close() {}

func (d *directAsker) ask(ctx context.Context, req subquery.Request) (subquery.Response, error) {
	material := []byte(req.Input)
	if req.File != "" {
		b, err := readRange(req.File, req.Offset, req.Length)
		if err != nil {
			return subquery.Response{Error: &subquery.Error{Code: subquery.CodeRefused, Message: err.Error()}}, nil
		}
		material = b
	}
	model := req.Model
	if model == "" {
		model = d.model
	}
	maxOut := req.MaxTokens
	if maxOut <= 0 {
		maxOut = harness.SubqueryMaxTokens
	}
	c, err := agent.Complete(ctx, d.client, llm.Request{Model: model, System: req.System, MaxTokens: maxOut,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: harness.SubqueryBlocks(material, req.Prompt)}}},
		agent.CompleteOptions{Retry: llm.DefaultRetryPolicy()})
	used := c.Total // every attempt's, as a sub-query in a run reports
	resp := subquery.Response{Text: d.red.Redact(c.Message.Text()), Model: model, Usage: subquery.Usage{InputTokens: used.InputTokens,
		OutputTokens: used.OutputTokens, CacheReadTokens: used.CacheReadTokens, CacheWriteTokens: used.CacheCreationTokens}}
	if err != nil {
		if ctx.Err() != nil {
			return resp, context.Cause(ctx)
		}
		resp.Error = &subquery.Error{Code: subquery.CodeProvider, Message: "model request failed: " + d.red.Redact(err.Error())}
	}
	return resp, nil
}

// readRange reads n bytes of path from off.
func readRange(path string, off, n int64) ([]byte, error) {
	if off < 0 || n <= 0 || n > harness.SubqueryMaterialMax {
		return nil, errors.New("a file range needs an offset of at least 0 and a length of 1 byte to " + input.FormatBytes(harness.SubqueryMaterialMax))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := f.ReadAt(buf, off)
	if k == 0 && err != nil {
		return nil, err
	}
	return buf[:k], nil
}
