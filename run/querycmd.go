package run

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/ghactions"
	"github.com/rubichan/rubichan/run/query"
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
		// A query reads the provider's settings and the stream's limits.
		Flags: append(queryFlagsList(), configFlagsNamed("config", "provider", "model", "base-url",
			"stream-idle-timeout", "stream-header-timeout", "max-response-size")...),
		Action: func(c *cli.Context) error {
			q, err := queryOptionsFrom(c)
			if err != nil {
				return err
			}
			q.Env = env.Env
			q.Config = func(dir string) config.Options { return configOptionsFromCLI(c, env, dir, false) }
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
			return query.Run(c.Context, q, query.IO{Stdin: stdin, Stdout: stdout, Stderr: c.App.ErrWriter})
		},
	}
}

// queryOptionsFrom reads and checks the flags of c.
func queryOptionsFrom(c *cli.Context) (query.Options, error) {
	q := query.Options{Prompt: strings.Join(c.Args().Slice(), " "), Model: c.String("model"),
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
			return q, exit.Usagef("--%s: want a size such as 64KB or 2MB, got %q", f.name, c.String(f.name))
		}
		*f.dst = int64(v)
	}
	switch {
	case q.Batch && q.Split != "":
		return q, exit.Usagef("--batch and --split cannot be used together")
	case q.Batch && q.Prompt != "":
		return q, exit.Usagef("--batch takes its prompts from the requests, not the arguments")
	case !q.Batch && strings.TrimSpace(q.Prompt) == "":
		return q, exit.Usagef("query needs a PROMPT")
	case q.Split != "" && q.Chunk <= 0:
		return q, exit.Usagef("--chunk must be at least 1B")
	case q.Split != "" && q.Overlap >= q.Chunk:
		return q, exit.Usagef("--overlap must be smaller than --chunk")
	}
	if q.Split != "" {
		if q.Split, err = filepath.Abs(q.Split); err != nil {
			return q, exit.Usagef("--split: %v", err)
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
		return 0, exit.Usagef("--%s: want a whole number of at least 1, got %q", name, s)
	}
	return n, nil
}
