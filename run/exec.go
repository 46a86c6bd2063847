package run

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

const execUsageText = `rubichan exec [flags] [PROMPT...]

   The prompt is the arguments joined by spaces, the contents of --prompt-file,
   or "-" for standard input. Standard input that is a pipe or a file is given
   to the model before the prompt; alone, it is the prompt. Flags may come
   before or after the prompt; "--" ends them.`

func execCommand(stdin io.Reader, env environment) *cli.Command {
	return &cli.Command{
		Name:      "exec",
		Usage:     "run the agent on a task until it is done",
		UsageText: execUsageText,
		Flags:     execFlags(),
		Action: func(c *cli.Context) error {
			cfg, err := configFromContext(c, env)
			if err != nil {
				return err
			}
			return runExec(c.Context, cfg, stdin, c.App.Writer, c.App.ErrWriter, env)
		},
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
