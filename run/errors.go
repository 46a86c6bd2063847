package run

import (
	"errors"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/urfave/cli/v2"
)

// The exit-code contract (codes, usage errors, Code) lives in run/exit;
// what stays here is the command layer's own.

// errBareInvocation is returned when rubichan runs with no command at all;
// help has already been printed, so [Main] prints nothing more.
var errBareInvocation = errors.New("no command given")

// requireSubcommand is the action of a command that only groups
// subcommands (`rubichan config`, `policy`, …): without a known subcommand
// there is nothing to do, which is a usage error naming the command, not
// help on stdout. hint follows "missing subcommand".
func requireSubcommand(name, hint string) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() == 0 {
			return exit.Usagef("%s: missing subcommand%s", name, hint)
		}
		return exit.Usagef("%s: unknown subcommand %q", name, c.Args().First())
	}
}
