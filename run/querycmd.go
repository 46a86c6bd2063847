package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/ghactions"
	"github.com/rubichan/rubichan/run/subquery"
	"github.com/urfave/cli/v2"
)

const queryUsageText = `rubichan query [--model M] [--max-tokens N] [--system TEXT] PROMPT
   rubichan query --batch [--concurrency N]  < requests.jsonl
   rubichan query --split FILE --chunk SIZE [--overlap SIZE] [--concurrency N] PROMPT

   One model request without tools: standard input (if any) is the material,
   sent before the prompt; the answer goes to stdout. Inside a rubichan run the
   request goes through the run (its key, its limits; see docs/subqueries.md).`

const queryDescription = `--batch reads JSONL requests, {"prompt": …, "input": …} or
{"prompt": …, "file": …, "offset": …, "length": …}, and writes one JSONL answer
per request, in input order. --split asks PROMPT of every chunk of FILE, cut at
line boundaries, and writes one JSONL answer per chunk with its byte range.

Examples:
   git diff | rubichan query "write the commit message"
   rubichan query --split app.log --chunk 2MB "list the errors in this log excerpt, or say NONE"

Exit codes: 0 done, 2 usage or a refused request, 4 a limit of the run,
5 the model provider failed, 130 interrupted.`

// queryFlagsList are the flags of `rubichan query` besides the
// configuration flags (which a query run by itself reads).
func queryFlagsList() []cli.Flag {
	const cat = "Query"
	return []cli.Flag{
		&cli.StringFlag{Name: "max-tokens", Usage: "at most `N` output tokens (default: 4096)", Category: cat},
		&cli.StringFlag{Name: "system", Usage: "system prompt `TEXT`", Category: cat},
		&cli.BoolFlag{Name: "batch", Usage: "read JSONL requests on stdin, write JSONL answers in input order", Category: cat},
		&cli.StringFlag{Name: "concurrency", Value: "4", Usage: "`N` requests in flight (--batch, --split); a run caps its own", Category: cat},
		&cli.StringFlag{Name: "split", Usage: "ask PROMPT of every chunk of `FILE`", Category: cat, TakesFile: true},
		&cli.StringFlag{Name: "chunk", Value: "256KB", Usage: "--split: chunks of at most `SIZE` (64KB, 2MB), cut at line boundaries", Category: cat},
		&cli.StringFlag{Name: "overlap", Value: "0", Usage: "--split: repeat about `SIZE` of each chunk's end at the next one's start", Category: cat},
	}
}

func queryCommand(stdin io.Reader, env environment) *cli.Command {
	return &cli.Command{
		Name:        "query",
		Usage:       "ask the model one question without tools (sub-queries)",
		UsageText:   queryUsageText,
		Description: queryDescription,
		Flags:       append(queryFlagsList(), configFlags()...),
		Action: func(c *cli.Context) error {
			q, err := queryOptionsFrom(c)
			if err != nil {
				return err
			}
			ak, err := newAsker(c, env)
			if err != nil {
				return err
			}
			stdout := c.App.Writer
			if sock, _ := env.LookupEnv(subquery.SocketEnv); sock == "" && githubEnv(env.LookupEnv) {
				// Under GitHub Actions the answer on the job's stdout
				// holds no workflow command, as exec's does. Inside a
				// run it goes to the model, unchanged.
				if q.Batch || q.Split != "" {
					stdout = ghactions.NewJSONWriter(stdout)
				} else {
					gw := ghactions.NewWriter(stdout)
					defer gw.Flush()
					stdout = gw
				}
			}
			return runQuery(c.Context, q, ak, stdin, stdout, c.App.ErrWriter)
		},
	}
}

// queryOptions are the parsed flags of one `rubichan query`.
type queryOptions struct {
	Prompt      string
	Model       string
	MaxTokens   int
	System      string
	Batch       bool
	Concurrency int
	Split       string
	Chunk       int64
	Overlap     int64
}

func queryOptionsFrom(c *cli.Context) (queryOptions, error) {
	q := queryOptions{Prompt: strings.Join(c.Args().Slice(), " "), Model: c.String("model"),
		System: c.String("system"), Batch: c.Bool("batch"), Split: c.String("split")}
	var err error
	if q.MaxTokens, err = positiveInt(c, "max-tokens", 0); err != nil {
		return q, err
	}
	if q.Concurrency, err = positiveInt(c, "concurrency", 4); err != nil {
		return q, err
	}
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"chunk", &q.Chunk}, {"overlap", &q.Overlap}} {
		v, err := config.ParseByteSize(c.String(f.name))
		if err != nil {
			return q, usagef("--%s: want a size such as 64KB or 2MB, got %q", f.name, c.String(f.name))
		}
		*f.dst = int64(v)
	}
	switch {
	case q.Batch && q.Split != "":
		return q, usagef("--batch and --split cannot be used together")
	case q.Batch && q.Prompt != "":
		return q, usagef("--batch takes its prompts from the requests, not the arguments")
	case !q.Batch && strings.TrimSpace(q.Prompt) == "":
		return q, usagef("query needs a PROMPT")
	case q.Split != "" && q.Chunk <= 0:
		return q, usagef("--chunk must be at least 1B")
	case q.Split != "" && q.Overlap >= q.Chunk:
		return q, usagef("--overlap must be smaller than --chunk")
	}
	if q.Split != "" {
		if q.Split, err = filepath.Abs(q.Split); err != nil {
			return q, usagef("--split: %v", err)
		}
	}
	return q, nil
}

// positiveInt reads an integer flag of at least 1; unset, def.
func positiveInt(c *cli.Context, name string, def int) (int, error) {
	s := c.String(name)
	if s == "" {
		return def, nil
	}
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n < 1 {
		return 0, usagef("--%s: want a whole number of at least 1, got %q", name, s)
	}
	return n, nil
}

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
func newAsker(c *cli.Context, env environment) (asker, error) {
	if path, ok := env.LookupEnv(subquery.SocketEnv); ok && path != "" {
		// A fan-out's command holds little (the run reads the chunks):
		// collect sooner, so that each stays near the runtime's floor.
		debug.SetGCPercent(20)
		token, _ := env.LookupEnv(subquery.TokenEnv)
		return socketAsker{path: path, token: token}, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	lc, err := loadConfig(configOptionsFromCLI(c, env, dir, false))
	if err != nil {
		return nil, settingsError{Err: err}
	}
	rp, err := resolveProvider(lc, env.LookupEnv)
	if err != nil {
		return nil, settingsError{Err: err}
	}
	// The answer and its errors go to a person or a pipe: a key the
	// server echoes is redacted, as in a run's output.
	red := newRedactor(secrets(rp, lc, mcpPlace{}, env))
	return &directAsker{model: rp.Model, client: newProviderClient(rp, streamLimitsOf(lc.Limits), nil), red: red}, nil
}

// socketAsker sends through the run: one connection per worker.
type socketAsker struct{ path, token string }

func (s socketAsker) open(ctx context.Context) (sender, error) {
	cl, err := subquery.Dial(ctx, s.path, s.token)
	if err != nil {
		return nil, exit.CodeError{Code: exit.Failure, Err: err}
	}
	return socketSender{cl}, nil
}

type socketSender struct{ cl *subquery.Client }

func (s socketSender) ask(ctx context.Context, req subquery.Request) (subquery.Response, error) {
	return s.cl.Ask(ctx, req)
}

func (s socketSender) close() { s.cl.Close() }

// directAsker asks the configured provider itself, reading file ranges
// itself: a plain pipeline primitive outside a run.
type directAsker struct {
	model  string
	client streamer
	red    *redactor // the key and credential header values
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
		maxOut = subqueryMaxTokens
	}
	c, err := agent.Complete(ctx, d.client, llm.Request{Model: model, System: req.System, MaxTokens: maxOut,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: subqueryBlocks(material, req.Prompt)}}},
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
	if off < 0 || n <= 0 || n > subqueryMaterialMax {
		return nil, errors.New("a file range needs an offset of at least 0 and a length of 1 byte to " + formatBytes(subqueryMaterialMax))
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
