package run

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/results"
	"github.com/urfave/cli/v2"
)

// resultsCommand is `rubichan results DIR [--json]`: the aggregate step of
// a fan-out on any engine (docs/scale-out.md).
func resultsCommand() *cli.Command {
	return &cli.Command{
		Name:      "results",
		Usage:     "sum up the result.json files of a fan-out: one table, or one JSON summary",
		UsageText: "rubichan results [--json] DIR",
		Description: `Reads every result.json beneath DIR — the object of --output json, or the
stream of --output stream-json whose last result event counts — and prints
one line per task (its directory) with a total, or with --json one summary:
tasks, by_exit_code (a result.json with no result counts under "none"),
tokens {input, output}, cost_usd (cost_unknown: results without a price)
and patches (tasks whose patch changes a file).

Exit codes: 0 every result.json held a result, 1 some held none (a task
that died before writing it) or none was found, 2 usage error.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the JSON summary instead of the table"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exit.Usagef("results: want one DIR, got %d arguments", c.NArg())
			}
			return runResults(c, c.Args().First())
		},
	}
}

func runResults(c *cli.Context, dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return exit.Usagef("results: %s is not a directory", dir)
	}
	entries, err := results.Scan(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("results: no %s beneath %s", results.FileName, dir)
	}
	s := results.Summarize(entries)
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		err = enc.Encode(s)
	} else {
		err = results.WriteTable(c.App.Writer, entries, s)
	}
	if err != nil {
		return exit.StdoutError{Err: err}
	}
	var lost []string
	for _, e := range entries {
		if e.Result == nil {
			lost = append(lost, e.Task)
		}
	}
	if len(lost) > 0 {
		return fmt.Errorf("results: %d of %d %s files hold no result: %s", len(lost), len(entries), results.FileName, strings.Join(lost, ", "))
	}
	return nil
}
