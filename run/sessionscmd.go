package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/ghactions"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/urfave/cli/v2"
)

// sessionsCommand is `rubichan sessions`: list, show and remove the
// sessions of the state directory.
func sessionsCommand(env environment) *cli.Command {
	dirFlag := &cli.StringFlag{Name: "session-dir", Usage: "the sessions' `DIR` (default: $XDG_STATE_HOME/rubichan/sessions, ~/.local/state/…)", EnvVars: envs("session-dir"), TakesFile: true}
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON"}
	return &cli.Command{
		Name:            "sessions",
		Usage:           "list, show and remove sessions",
		HideHelpCommand: true,
		OnUsageError:    func(_ *cli.Context, err error, _ bool) error { return exit.UsageError{Err: err} },
		Subcommands: []*cli.Command{
			{
				Name: "list", Usage: "the sessions of this workspace (--all: of every workspace), newest first",
				UsageText: "rubichan sessions list [--json] [--all] [-C DIR]",
				Flags: []cli.Flag{dirFlag, jsonFlag,
					&cli.BoolFlag{Name: "all", Usage: "sessions of every workspace"},
					&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "the workspace `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
				},
				Action: func(c *cli.Context) error { return runSessionsList(c, env) },
			},
			{
				Name: "show", Usage: "a readable transcript of a session (--json: its lines as written)",
				UsageText: "rubichan sessions show [--json] ID|PATH",
				Flags:     []cli.Flag{dirFlag, jsonFlag},
				Action:    func(c *cli.Context) error { return runSessionsShow(c, env) },
			},
			{
				Name: "rm", Usage: "remove a session", UsageText: "rubichan sessions rm ID...",
				Flags:  []cli.Flag{dirFlag},
				Action: func(c *cli.Context) error { return runSessionsRm(c, env) },
			},
		},
		Action: requireSubcommand("sessions", ": list, show or rm"),
	}
}

func sessionStore(c *cli.Context, env environment) session.Store {
	return session.Store{Dir: sessionFlags{SessionDir: c.String("session-dir")}.sessionDir(env)}
}

func runSessionsList(c *cli.Context, env environment) error {
	if c.NArg() > 0 {
		return exit.Usagef("sessions list: unexpected argument %q", c.Args().First())
	}
	st := sessionStore(c, env)
	ws := ""
	if !c.Bool("all") {
		cfg := execConfig{Dir: c.String("cwd")}
		if err := cfg.resolveDir(); err != nil {
			return err
		}
		ws = cfg.Dir
	}
	list, err := st.List(ws)
	if err != nil {
		return err
	}
	out := c.App.Writer
	if c.Bool("json") {
		return writeSessionsJSON(out, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(c.App.ErrWriter, "no sessions")
		return nil
	}
	return writeSessionList(out, list)
}

// writeSessionsJSON prints the sessions as one JSON array.
func writeSessionsJSON(out io.Writer, list []session.Info) error {
	out = sink.NewJSONShown(out)
	if list == nil {
		list = []session.Info{}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(list)
}

// writeSessionJSON prints the lines of a session file as they are, but
// for the characters that would act on a terminal (see [jsonShownWriter]).
func writeSessionJSON(w io.Writer, data []byte) error {
	_, err := sink.NewJSONShown(w).Write(data)
	return err
}

// writeSessionList prints the sessions as a table, one line each.
func writeSessionList(out io.Writer, list []session.Info) error {
	tw := tabwriter.NewWriter(out, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED\tUPDATED\tRUNS\tTURNS\tSTATUS\tWORKSPACE\tPROMPT")
	for _, s := range list {
		status := s.Status
		if s.Pending > 0 {
			status = fmt.Sprintf("%s (%d pending)", status, s.Pending)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", agent.Shown(s.ID), agent.Shown(shortTime(s.Created)), agent.Shown(shortTime(s.Updated)),
			s.Runs, s.Turns, agent.Shown(status), agent.Shown(s.Workspace), agent.Clip(oneLine(s.Prompt), 50))
	}
	return tw.Flush()
}

func runSessionsShow(c *cli.Context, env environment) error {
	if c.NArg() != 1 {
		return exit.Usagef("sessions show: want one session ID or PATH, got %d arguments", c.NArg())
	}
	path, err := sessionStore(c, env).Resolve(c.Args().First())
	if err != nil {
		return exit.Usagef("sessions show: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return exit.Usagef("sessions show: %v", err)
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1] // a torn last line is not shown
	} else {
		data = nil
	}
	out := c.App.Writer
	if githubEnv(env.LookupEnv) {
		// Under GitHub Actions the transcript, the model's text, holds
		// no workflow command on the job's log, as exec's output does.
		if c.Bool("json") {
			out = ghactions.NewJSONWriter(out)
		} else {
			gw := ghactions.NewWriter(out)
			defer gw.Flush()
			out = gw
		}
	}
	if c.Bool("json") {
		return writeSessionJSON(out, data)
	}
	return writeTranscript(out, filepath.Base(path), data)
}

func runSessionsRm(c *cli.Context, env environment) error {
	if c.NArg() == 0 {
		return exit.Usagef("sessions rm: want a session ID")
	}
	st := sessionStore(c, env)
	for _, id := range c.Args().Slice() {
		if strings.ContainsRune(id, '/') || strings.HasSuffix(id, session.Ext) {
			return exit.Usagef("sessions rm: %q: give the id of a session in %s, not a path", id, st.Dir)
		}
		if err := st.Remove(id); err != nil {
			return exit.Usagef("sessions rm: %v", err)
		}
	}
	return nil
}

// shortTime is a line's time to the second.
func shortTime(t string) string {
	if len(t) >= 19 {
		return strings.Replace(t[:19], "T", " ", 1)
	}
	return t
}

// writeTranscript renders the lines of a session for a person: each run
// with its prompt, the model's answers, the tool calls with their
// decisions and outcomes, and the calls pending approval. Nearly all of it
// comes from the model, the tools and the workspace: its control
// characters are shown ([agent.Shown]).
func writeTranscript(w io.Writer, name string, data []byte) error {
	var b strings.Builder
	for n, raw := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		var l session.Line
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("session %s: line %d: %v", name, n+1, err)
		}
		b.Reset()
		transcriptLine(&b, &l)
		if _, err := io.WriteString(w, agent.Shown(b.String())); err != nil {
			return err
		}
	}
	return nil
}

func transcriptLine(w io.Writer, l *session.Line) {
	switch l.Type {
	case session.TypeHeader, session.TypeRun:
		if l.Type == session.TypeHeader {
			fmt.Fprintf(w, "session %s (format %d), workspace %s\n", l.ID, l.Format, l.Workspace)
		}
		fmt.Fprintf(w, "\n── run %d · %s · %s %s · policy %s\n", max(l.Run, 1), shortTime(l.Time), l.Provider, l.Model, l.Policy)
		if l.ForkedFrom != "" {
			fmt.Fprintf(w, "   forked from %s\n", l.ForkedFrom)
		}
		if len(l.Approve) > 0 {
			fmt.Fprintf(w, "   approved: %s\n", strings.Join(l.Approve, ", "))
		}
		if l.DenyPending {
			fmt.Fprintln(w, "   denied the pending calls")
		}
		if l.Prompt != nil && *l.Prompt != "" {
			fmt.Fprintf(w, "> %s\n", indent(*l.Prompt, "  "))
		}
	case session.TypeMessage:
		if l.Text != nil && strings.TrimSpace(*l.Text) != "" {
			fmt.Fprintf(w, "%s\n", strings.TrimRight(*l.Text, "\n"))
		}
	case session.TypeToolCall:
		fmt.Fprintf(w, "▸ %s %s  %s\n", l.Name, l.ID, callText(l.Input))
	case session.TypeDecision:
		fmt.Fprintf(w, "  %s by %s: %s\n", l.Decision, l.Rule, agent.Clip(l.Fact, 200))
	case session.TypeToolResult:
		transcriptResult(w, l)
	case session.TypeRetry:
		fmt.Fprintf(w, "  retry %d: %s\n", l.Attempt, l.Reason)
	case session.TypeLimit:
		fmt.Fprintf(w, "stopped: %s\n", textOf(l.Text))
	case session.TypeError:
		fmt.Fprintf(w, "error: %s\n", l.Error)
	case session.TypeEnd:
		transcriptEnd(w, l)
	}
}

func transcriptResult(w io.Writer, l *session.Line) {
	mark := "✓"
	if l.IsError != nil && *l.IsError {
		mark = "✗"
	}
	extra := ""
	if l.ExitCode != nil {
		extra = fmt.Sprintf(" exit %d", *l.ExitCode)
	}
	out := ""
	if l.Output != nil {
		out = *l.Output
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	more := ""
	if len(lines) > 3 {
		more = fmt.Sprintf(" … (%d lines)", len(lines))
		lines = lines[:3]
	}
	fmt.Fprintf(w, "  %s%s %s%s\n", mark, extra, indent(strings.Join(lines, "\n"), "    "), more)
}

func transcriptEnd(w io.Writer, l *session.Line) {
	code := 0
	if l.ExitCode != nil {
		code = *l.ExitCode
	}
	turns := 0
	if l.Turns != nil {
		turns = *l.Turns
	}
	fmt.Fprintf(w, "── end: %s (exit %d) · %d turns\n", l.Status, code, turns)
	if len(l.Pending) > 0 {
		fmt.Fprintln(w, "pending approval:")
		for _, p := range l.Pending {
			sink.WritePending(w, p)
		}
	}
}

func indent(s, pad string) string { return strings.ReplaceAll(s, "\n", "\n"+pad) }

// textOf is *p, or "" for nil.
func textOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// callText is a tool call's input as a person reads it: a command (the
// bash tool's: an input of one "command" string) whole and decoded from
// its JSON string, on one line with its control characters shown (see
// [sink.Whole]); any other input as JSON with <, > and & as they are,
// clipped.
func callText(input any) string {
	if m, ok := input.(map[string]any); ok {
		if cmd, ok := m["command"].(string); ok && len(m) == 1 {
			return sink.Whole(cmd)
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(input); err != nil {
		return ""
	}
	return agent.Clip(agent.Shown(strings.TrimRight(b.String(), "\n")), 200)
}
