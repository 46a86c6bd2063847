package run

import (
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/urfave/cli/v2"
)

// schemaCommand is `rubichan schema events`: the JSON Schema of the
// machine output, as embedded in the binary.
func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print a JSON Schema of rubichan's output",
		UsageText: "rubichan schema events",
		Description: `Prints the JSON Schema (draft 2020-12) of the events of
   rubichan exec --output stream-json, and of the result object of --output json.`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 || c.Args().First() != "events" {
				return exit.Usagef("schema: name the schema: rubichan schema events")
			}
			if _, err := c.App.Writer.Write(events.Schema()); err != nil {
				return exit.StdoutError{Err: err}
			}
			return nil
		},
	}
}
