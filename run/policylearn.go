package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rubichan/rubichan/policy/learn"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/learnlog"
	"github.com/rubichan/rubichan/run/session"
)

func policyLearnCommand(env environment) *cli.Command {
	return &cli.Command{
		Name:      "learn",
		Usage:     "learn the smallest policy that allows what recorded runs needed",
		UsageText: "rubichan policy learn [--base FILE] [-o FILE] [--session-dir DIR] SESSION...",
		Description: `Reads one or more session logs (an id in the session directory, or a path)
and writes a policy file that allows their learnable calls: every call that ran,
and every denied or deferred call whose facts are ordinary reads, writes inside
the workspace off the guarded paths, or commands whose options are modelled.
Commands become ` + "`PROGRAM SUB *`" + ` only where the modelled options make a final *
safe, writes become directory globs, MCP calls mcp:SERVER/TOOL rules. Network
access, secret reads, guarded writes and programs that run other programs are
never generalised: kept literal when they ran, left out with a comment when the
run only tried them. Each rule names the session and call ids it came from and
has [[test]] self-tests; check them with rubichan policy check --policy FILE.
With --base, the output is the base followed by the rules it lacks.

Exit codes: 0 when a policy was written, 1 when -o FILE cannot be written, 2
when a session or the base cannot be read.`,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return exit.UsageError{Err: err} },
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base", Usage: "add only the rules missing from this policy `FILE`", TakesFile: true},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the policy to `FILE` (default: stdout)", TakesFile: true},
			&cli.StringFlag{Name: "session-dir", Usage: "the sessions' `DIR` (default: $XDG_STATE_HOME/rubichan/sessions, ~/.local/state/…)", EnvVars: envs("session-dir"), TakesFile: true},
		},
		Action: func(c *cli.Context) error { return runPolicyLearn(c, env) },
	}
}

func runPolicyLearn(c *cli.Context, env environment) error {
	if c.NArg() == 0 {
		return exit.Usagef("policy learn: want one or more session IDs or paths")
	}
	var files []string
	for _, ref := range c.Args().Slice() {
		file, err := sessionStore(c, env).Resolve(ref)
		if err != nil {
			return exit.Usagef("policy learn: %v", err)
		}
		files = append(files, file)
	}
	return learnPolicy(files, c.String("base"), c.String("output"), c.App.Writer, c.App.ErrWriter)
}

// learnPolicy learns a policy from the session logs files (with the base
// policy file base, when not "") and writes it to out, or to w when out
// is "". A log or base that cannot be read is a usage error (exit 2).
// It says on errw how many rules and self-tests were learned.
func learnPolicy(files []string, base, out string, w, errw io.Writer) error {
	var calls []learn.Call
	var guarded []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return exit.Usagef("policy learn: %v", err)
		}
		cs, err := learnlog.Calls(file, data)
		if err != nil {
			return exit.Usagef("policy learn: %v", err)
		}
		calls = append(calls, cs...)
		guarded = append(guarded, inWorkspace(file, data), inWorkspace(out, data))
	}
	o := learn.Options{Guarded: guarded}
	if base != "" {
		data, err := os.ReadFile(base)
		if err != nil {
			return exit.Usagef("policy learn: --base: %v", err)
		}
		o.Base, o.BaseName = data, base
	}
	res, err := learn.Learn(calls, o)
	if err != nil {
		return exit.Usagef("policy learn: %v", err)
	}
	if out == "" {
		if _, err := w.Write(res.Text); err != nil {
			return err
		}
	} else if err := os.WriteFile(out, res.Text, 0o644); err != nil {
		return fmt.Errorf("policy learn: %w", err)
	}
	fmt.Fprintf(errw, "rubichan: learned %d rule(s) with %d self-test(s) from %d call(s); %d left out (see the comments)\n",
		res.Rules, res.Tests, len(calls), len(res.Left))
	return nil
}

// inWorkspace is file relative to the workspace the session log data
// names, or "" when it lies outside (or there is none).
func inWorkspace(file string, data []byte) string {
	if file == "" {
		return ""
	}
	ws := workspaceOf(data)
	abs, err := filepath.Abs(file)
	if ws == "" || err != nil {
		return ""
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// workspaceOf is the workspace of a session log's header line.
func workspaceOf(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var h session.Line
	if json.Unmarshal(line, &h) != nil {
		return ""
	}
	return h.Workspace
}
