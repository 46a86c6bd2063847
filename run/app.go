package run

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// version is the program version, set at build time with
// -ldflags "-X github.com/rubichan/rubichan/run.version=...".
var version = "dev"

// NewApp builds the command-line application on the given streams. It never
// calls os.Exit: errors come back from Run and [Main] turns them into exit
// codes. Usage errors are printed on stderr, never stdout.
func NewApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                 "rubichan",
		Usage:                "a headless coding agent for pipelines",
		Version:              version,
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		Commands: []*cli.Command{
			versionCommand(),
			policyCommand(),
		},
	}
	return app
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "rubichan %s\n", version)
			return err
		},
	}
}
