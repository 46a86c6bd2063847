package run

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/acp"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/urfave/cli/v2"
)

const acpUsageText = `rubichan acp [flags]

   The Agent Client Protocol (ACP v1) on standard input and output, for an
   editor (Zed, JetBrains IDEs, Neovim, Emacs) that starts rubichan as its
   agent: JSON-RPC 2.0, one message a line. Standard output carries nothing
   but ACP; notes and tool activity go to standard error.

   Each session/new opens a session in the cwd the editor sends, confined
   there as exec confines its workspace, with the configuration, policy and
   flags exec would use there; a person is present, so the workspace's
   .rubichan/ files are trusted as in line mode. A call the policy marks
   "ask" becomes the editor's permission dialog. See docs/acp.md.`

// acpCommand is `rubichan acp`: the engine behind an editor.
func acpCommand(stdin io.Reader, env environment) *cli.Command {
	flags := append(acpFlags(), &cli.StringFlag{Name: "permission-timeout", Category: "Policy", EnvVars: envs("permission-timeout"),
		Usage: "how long a permission request waits for the editor's answer (`DURATION`, 0: no limit; config: [acp] permission_timeout) before the call gets the --on-ask behaviour"})
	return &cli.Command{
		Name:      "acp",
		Usage:     "serve editors over the Agent Client Protocol on stdin/stdout",
		UsageText: acpUsageText,
		Flags:     flags,
		Action: func(c *cli.Context) error {
			if !c.IsSet("trust-workspace") {
				// A person is in the editor: the workspace is theirs to trust.
				_ = c.Set("trust-workspace", "true")
			}
			if c.NArg() > 0 {
				return exit.Usagef("acp: takes no prompt; the editor sends the prompts")
			}
			base, err := configFromContext(c, env)
			if err == nil {
				err = base.checkChat()
			}
			if err != nil && !missingKey(err) {
				return err
			}
			stderr := c.App.ErrWriter
			if err != nil {
				// Served anyway: each session/new answers with the error.
				fmt.Fprintf(stderr, "rubichan acp: %v\n", err)
			}
			timeout, terr := permissionTimeout(c, base.Settings)
			if terr != nil {
				return terr
			}
			o := &acpOpener{c: c, env: env, stderr: stderr}
			srv := acp.NewServer(c.App.Writer, acp.Options{Open: o.open, List: o.list, Version: readBuildInfo().Version,
				Notes: stderr, PermissionTimeout: timeout})
			return srv.Serve(c.Context, stdin)
		},
	}
}

// acpFlags are exec's flags but the fan-out's (--tasks, --task-index):
// the editor sends the prompts, so a task would be read and ignored.
func acpFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range execFlags() {
		if n := rawName(f); n != "tasks" && n != "task-index" {
			out = append(out, f)
		}
	}
	return out
}

// missingKey reports whether err is the configuration's "no key": the
// editor is told at session/new (ACP's "authentication required") rather
// than the process ending before it can say anything.
func missingKey(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "needs an API key") || strings.Contains(msg, "no model provider")
}

// permissionTimeout is --permission-timeout, else [acp] permission_timeout
// of the configuration rubichan acp started with; 0: no limit.
func permissionTimeout(c *cli.Context, lc *config.Loaded) (time.Duration, error) {
	if c.IsSet("permission-timeout") {
		d, err := time.ParseDuration(c.String("permission-timeout"))
		if err != nil || d < 0 {
			return 0, exit.Usagef("--permission-timeout: want a duration such as 5m, got %q", c.String("permission-timeout"))
		}
		return d, nil
	}
	if lc == nil {
		return 0, nil
	}
	return lc.ACP.PermissionTimeout, nil
}

// acpOpener opens the sessions of `rubichan acp`, one run stack each, as
// line mode opens its one.
type acpOpener struct {
	c      *cli.Context
	env    environment
	stderr io.Writer
	mu     sync.Mutex // configFromContext reads the flags: one at a time
}

// open is [acp.Opener]: the configuration read for the client's cwd as
// exec reads it for --cwd, the client's MCP servers added to the
// configured ones, the run opened ([harness.Open]) as line mode opens its
// one, its sinks on stderr alone.
func (o *acpOpener) open(ctx context.Context, opt acp.OpenOptions) (acp.Engine, error) {
	o.mu.Lock()
	cfg, err := o.config(opt)
	o.mu.Unlock()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	s := cfg.settings()
	// One trace per ACP session: its run span, each prompt's requests
	// and tool calls under it, flushed when the session closes.
	tel, endTelemetry := startTelemetry(ctx, cfg, o.env, o.stderr)
	sopt := cfg.sinkOptions(nil, o.env, func(error) {})
	sopt.Observe = opt.Emit
	if tel != nil {
		sopt.Observe = func(ev agent.Event) { opt.Emit(ev); tel.Observe(ev) }
	}
	fan := sink.New(io.Discard, o.stderr, sopt)
	st, err := harness.Open(ctx, s, harness.OpenOptions{Stdout: io.Discard, Stderr: o.stderr, Env: o.env.Env, Sinks: fan,
		Start: start, Build: sinkBuild(), NewAsker: opt.Asker, Telemetry: tel})
	if err != nil {
		fan.Close()
		endTelemetry()
		return nil, err
	}
	id := sink.NewSessionID(start)
	if p := st.Session.Path(); p != "" {
		id = session.IDOf(p)
	}
	tel.SetConversation(id)
	return &acpEngine{s: s, st: st, fan: fan, id: id, startModel: st.Agent.Model(), endTelemetry: endTelemetry}, nil
}

// list is [acp.Lister]: the sessions of the session directory exec uses,
// as `rubichan sessions list` shows them.
func (o *acpOpener) list(cwd string) ([]acp.SessionInfo, error) {
	o.mu.Lock()
	cfg, err := configFromContext(o.c, o.env)
	o.mu.Unlock()
	if err != nil && !missingKey(err) {
		return nil, err
	}
	infos, err := session.Store{Dir: cfg.sessionDir(o.env)}.List(cwd)
	if err != nil {
		return nil, err
	}
	out := make([]acp.SessionInfo, 0, len(infos))
	for _, in := range infos {
		out = append(out, acp.SessionInfo{ID: in.ID, Cwd: in.Workspace, Title: shortTitle(in.Prompt), UpdatedAt: in.Updated})
	}
	return out, nil
}

// shortTitle is a prompt's first line, at most 80 characters.
func shortTitle(p string) string {
	p, _, _ = strings.Cut(strings.TrimSpace(p), "\n")
	if r := []rune(p); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return p
}

// config is exec's configuration for the session's cwd.
func (o *acpOpener) config(opt acp.OpenOptions) (execConfig, error) {
	cfg, err := configFromContext(o.c, o.env)
	if err != nil {
		return cfg, err
	}
	cfg.Dir = opt.Cwd
	if err := cfg.resolveDir(); err != nil {
		return cfg, err
	}
	if err := cfg.loadSettings(o.c, o.env); err != nil {
		return cfg, err
	}
	for _, s := range opt.MCPServers {
		if err := config.CheckMCPServerName(s.Name); err != nil {
			return cfg, fmt.Errorf("acp: the client's MCP server %q: %w", s.Name, err)
		}
	}
	if len(opt.MCPServers) > 0 {
		cfg.Settings = withClientMCP(cfg.Settings, opt.MCPServers)
	}
	if opt.Resume != "" {
		// session/load and session/resume continue the session as --resume does.
		cfg.sessionFlags.Resume, cfg.sessionFlags.Continue = opt.Resume, false
	}
	return cfg.forLineMode(), nil // a person answers; the next prompt must find the conversation valid
}

// withClientMCP is lc with the client's MCP servers added to the
// configured ones (a client's server of a configured name replaces it):
// a copy, the loaded configuration unchanged.
func withClientMCP(lc *config.Loaded, servers []acp.MCPServer) *config.Loaded {
	cp := *lc
	all := maps.Clone(lc.MCP.Servers)
	if all == nil {
		all = map[string]config.MCPServer{}
	}
	for _, s := range servers {
		all[s.Name] = config.MCPServer{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
	}
	cp.MCP.Servers = all
	return &cp
}

// acpEngine is one ACP session: its run, a run of the agent per prompt.
type acpEngine struct {
	startModel string
	s          harness.Settings
	st         *harness.Run
	fan        *sink.Fan
	id         string
	runs       int
	// endTelemetry flushes the session's trace, bounded; it warns on
	// stderr when the collector could not be reached.
	endTelemetry func()
}

func (e *acpEngine) ID() string { return e.id }

// Prompt runs the agent once, as line mode runs a line: the run's own
// limits, the conversation going on from the last prompt.
func (e *acpEngine) Prompt(ctx context.Context, text string) error {
	st, l := e.st, e.st.Agent
	start := time.Now()
	if e.runs > 0 {
		st.Session.NextRun(sink.SessionHeader{Start: start, Workspace: st.WorkDir(), Provider: e.s.Provider.Name, API: e.s.Provider.Type,
			Model: l.Model(), Policy: st.Policy.Name(), PolicyFile: st.Policy.File(), Prompt: text}, e.runs+1)
	}
	runCtx, cancel := harness.WithRunTimeout(ctx, e.s.Limits().Timeout)
	defer cancel()
	history, open := l.Messages(), []llm.Block(nil)
	if e.runs == 0 {
		history, open = st.Plan.Conversation(e.s.Provider.Type)
	}
	runErr := l.Resume(runCtx, history, open, text)
	err := harness.Finish(runErr, l, e.fan.Text(), start, e.fan.Emit, harness.RunEnd{Verifier: st.Verifier, Structured: st.Structured})
	e.runs++
	st.Session.Reopen()
	return err
}

// Models is the session's model and those it may switch to: the
// provider's default and sub-query models, and the model it started with.
func (e *acpEngine) Models() (string, []string) {
	cur := e.st.Agent.Model()
	choices := []string{e.startModel}
	for _, p := range config.Presets() {
		if p.Name == e.s.Provider.Name {
			choices = append(choices, p.Model, p.SubModel)
		}
	}
	choices = append(choices, e.s.Provider.SubModel, cur)
	out := choices[:0]
	for _, c := range choices {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return cur, out
}

// SetModel is line mode's /model: under a cost cap the session keeps its
// model, the cap being priced at it.
func (e *acpEngine) SetModel(name string) error {
	if e.s.Limits().MaxCost > 0 {
		return fmt.Errorf("acp: --max-cost is priced at %s; start a new session to use another model", e.st.Agent.Model())
	}
	e.st.Agent.SetModel(name, harness.CompactFor(e.s, name, e.fan.Emit))
	return nil
}

// History is the conversation of the session the engine resumed.
func (e *acpEngine) History() []llm.Message {
	h, _ := e.st.Plan.Conversation(e.s.Provider.Type)
	return h
}

// Usage is the model's window and the session's cost so far.
func (e *acpEngine) Usage() acp.Usage {
	var models map[string]config.Window
	if e.s.Config != nil {
		models = e.s.Config.Models
	}
	w, ok := config.LookupWindow(models, e.st.Agent.Model())
	if !ok {
		w = config.UnknownWindow() // what compaction assumes too
	}
	u := acp.Usage{Window: int64(w.ContextWindow)}
	u.CostUSD, u.CostKnown = e.st.Budget.Cost()
	return u
}

// Close writes the traffic's cassette and closes the run and its sinks.
func (e *acpEngine) Close() error {
	notice := func(s string) { e.fan.Emit(agent.Event{Kind: agent.EventNotice, Text: s}) }
	err := e.st.Traffic.Finish(nil, notice)
	e.st.Close()
	e.fan.Close()
	e.endTelemetry()
	return err
}
