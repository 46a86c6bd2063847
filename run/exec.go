package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/sandbox"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

const execUsageText = `rubichan exec [flags] [PROMPT...]

   The prompt is the arguments joined by spaces, the contents of --prompt-file,
   or "-" for standard input. Standard input that is a pipe or a file is given
   to the model before the prompt; alone, it is the prompt. Flags may come
   before or after the prompt; "--" ends them.`

const execDescription = `Examples:
   cat build.log | rubichan exec "why did the build fail?"
   git diff | rubichan exec --output final "write a commit message for this diff"
   rubichan exec --allow 'write:**' --allow 'shell:go test ./...' "fix the failing test"
   rubichan exec --policy ci.toml --max-cost 2 --timeout 10m "fix the lint errors" > answer.md
   echo "list the TODO comments" | rubichan exec -
   rubichan exec --output stream-json "fix the lint errors" | jq -c 'select(.type=="result")'

Exit codes: 0 done, 1 runtime failure, 2 usage or configuration error,
3 stopped by the policy, 4 a limit was reached, 5 the model provider failed,
130/143 interrupted by SIGINT/SIGTERM, 141 stdout closed by its reader.`

func execCommand(stdin io.Reader, env environment) *cli.Command {
	return &cli.Command{
		Name:        "exec",
		Usage:       "run the agent on a task until it is done",
		UsageText:   execUsageText,
		Description: execDescription,
		Flags:       execFlags(),
		Action: func(c *cli.Context) error {
			cfg, err := configFromContext(c, env)
			if err != nil {
				return err
			}
			return runExec(c.Context, cfg, stdin, c.App.Writer, c.App.ErrWriter, env, machineSink(c))
		},
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runExec is one headless run: policy, workspace, input, tools, the loop,
// and the closing summary. Errors it has already shown on stderr come back
// as [reportedError]s carrying their exit code.
//
// machine, when not nil, is the sink of --output json or stream-json that
// [runMain] made before the arguments were parsed; it writes the result.
func runExec(ctx context.Context, cfg execConfig, stdin io.Reader, stdout, stderr io.Writer, env environment, machine *jsonSink) (err error) {
	start := time.Now()
	// A failed write on stdout stops the run: its answer is lost.
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	js := machine
	if js == nil && (cfg.Output == outputJSON || cfg.Output == outputStreamJSON) {
		// An app run without runMain: the result is written here.
		js = newJSONSink(stdout, cfg.Output == outputStreamJSON, newSessionID(start), nil)
		defer func() { js.finish(err, exitCode(err)) }()
	}
	sinks := newRunSinks(cfg, js, stdout, stderr, env, stopRun)
	emit, notes, text := sinks.emit, sinks.notes, sinks.text
	notice := func(s string) { emit(Event{Kind: EventNotice, Text: s}) }
	budget, err := cfg.startSettings(notice)
	if err != nil {
		return err
	}
	box, err := startSandbox(cfg, env, notice)
	if err != nil {
		return err
	}
	if js != nil {
		js.price = budget.RequestCost
	}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, cfg.Timeout, errTimeout)
		defer cancel()
	}
	ws, pol, err := openWorkspace(cfg, notes, notice)
	if err != nil {
		return err
	}
	defer ws.Close()

	in, err := readInputContext(ctx, stdin, inputOptions{
		Args: cfg.PromptArgs, PromptFile: cfg.PromptFile, NoStdin: cfg.NoStdin, Notice: notice,
		InlineMax: cfg.inlineMax(), StdinMax: cfg.stdinMax(),
	})
	if err != nil {
		return interrupted(ctx, err, emit)
	}
	defer in.Close()
	tr, err := cfg.openTraffic(ws.Root(), env.today(), env)
	if err != nil {
		return err
	}
	// Commands' descendants that detached from their process group are
	// ended with each command and, at the latest, here (also on a signal).
	reaper := toolkit.NewReaper()
	defer reaper.Sweep()
	tmp, err := runTempDir()
	if err != nil {
		return fmt.Errorf("run: temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	tools := runTools{sandbox: box, tempDir: tmp, reaper: reaper}
	l, err := newExecLoop(cfg, ws, pol, in.Spill, budget, env, tr, emit, tools)
	if err != nil {
		tr.finish(err, notice)
		return err
	}
	sess := cfg.openSession(env, sinks.sessionID(), start, ws.Root(), pol, in.Text, stderr)
	defer sess.Close()
	sinks.started(sess, initEvent(cfg, ws.Root(), l.toolSpecNames(), pol, box))
	l.hooks = cfg.newHooks(env, ws.Root(), sinks.sessionID(), sess, emit, reaper)
	return finishRun(tr.finish(l.run(ctx, in.Text), notice), l, text, start, emit)
}

// openWorkspace loads the run's policy and opens the workspace with the
// extra roots the policy grants; a root that cannot be opened is a notice.
func openWorkspace(cfg execConfig, notes io.Writer, notice func(string)) (*toolkit.Workspace, *policy.Policy, error) {
	pol, err := loadPolicy(policySource{
		Dir: cfg.Dir, File: cfg.PolicyFile, Allow: cfg.Allow, Deny: cfg.Deny,
		TrustWorkspace: cfg.TrustWorkspace, Headless: true,
	}, notes)
	if err != nil {
		return nil, nil, err
	}
	ws, err := toolkit.OpenWorkspace(cfg.Dir)
	if err != nil {
		return nil, nil, usagef("workspace: %v", err)
	}
	for _, r := range pol.ExtraRoots() {
		if err := ws.AddRoot(r.Dir, r.Write); err != nil {
			notice(fmt.Sprintf("policy names %s, which cannot be opened: %v", r.Dir, err))
		}
	}
	return ws, pol, nil
}

// newExecLoop builds the turn loop of a headless run: the spilled stdin,
// if any, opened read-only for the file tools; the tools behind the
// policy; the system prompt; the limits and the model client on the
// run's traffic.
func newExecLoop(cfg execConfig, ws *toolkit.Workspace, pol *policy.Policy, sp *spill, budget *Budget, env environment, tr *traffic, emit func(Event), rt runTools) (*loop, error) {
	spillDir := ""
	if sp != nil {
		spillDir = sp.Dir
		if err := ws.AddRoot(spillDir, false); err != nil {
			return nil, fmt.Errorf("run: open spilled stdin: %w", err)
		}
	}
	ap := newApprover(pol, ws, spillDir)
	sys, err := systemPrompt(promptOptions{
		Root: ws.Root(), Now: env.today(), Replace: cfg.SystemPrompt, Append: cfg.AppendSystem, NoContextFiles: cfg.NoContextFiles,
		Readable: pol.ReadFilter(),
	})
	if err != nil {
		return nil, err
	}
	return newLoop(loopConfig{
		Model:        cfg.Model,
		System:       sys,
		Tools:        buildTools(ws, ap, cfg, env, rt),
		MaxTurns:     cfg.MaxTurns,
		MaxToolCalls: cfg.MaxToolCalls,
		MaxDenials:   pol.MaxDenials(),
		AbortOnAsk:   abortOnAsk(cfg.OnAsk, pol),
		Timeout:      cfg.Timeout,
		Budget:       budget,
		Retry:        llm.DefaultRetryPolicy(),
		Redact:       newRedactor(cfg.secrets(env)),
		Compact:      compactSettings(cfg, emit),
		Clock:        tr.clock,
	}, newProviderClient(cfg.Resolved, cfg.streamLimits(), tr.hc), ap.judge, emit), nil
}

// abortOnAsk says what makes a call that needs approval stop a headless
// run: --on-ask, else the policy's headless_ask; "" when it is denied.
func abortOnAsk(onAsk string, pol *policy.Policy) string {
	switch {
	case onAsk == "abort":
		return "--on-ask is abort"
	case onAsk == "" && pol.HeadlessAsk() == policy.AskAbort:
		return "the policy's headless_ask is abort"
	}
	return ""
}

// finishRun reports how the loop ended — its error, unless already shown
// or not worth a line (stdout's reader gone) — and the closing summary,
// and returns the run's error.
func finishRun(runErr error, l *loop, text *textSink, start time.Time, emit func(Event)) error {
	code := exitCode(runErr)
	var sig SignalError
	var rep reportedError
	switch {
	case errors.As(runErr, &sig):
		code = sig.ExitCode()
		emit(Event{Kind: EventError, Err: runErr})
	case runErr != nil && !errors.As(runErr, &rep) && !brokenPipe(runErr):
		emit(Event{Kind: EventError, Err: runErr})
	}
	emit(Event{Kind: EventTurnDone, Summary: l.summary(start, code)})
	if runErr == nil {
		return text.err // --output final writes at the end
	}
	return reportedError{runErr}
}

// interrupted returns err, or the run's interruption when ctx ended first.
func interrupted(ctx context.Context, err error, emit func(Event)) error {
	if ctx.Err() == nil {
		return err
	}
	cause := context.Cause(ctx)
	if errors.Is(cause, errTimeout) {
		emit(Event{Kind: EventLimit, Text: "reached --timeout while reading standard input"})
		return reportedError{exitError{code: exitLimit, err: cause, kind: events.ErrTimeout}}
	}
	emit(Event{Kind: EventError, Err: cause})
	return reportedError{cause}
}

// readInputContext is readInput that gives up when ctx ends: a read from a
// pipe cannot be interrupted, so it runs aside, and a spill directory it
// created is removed when the run does not wait for it.
func readInputContext(ctx context.Context, stdin io.Reader, opt inputOptions) (*input, error) {
	var mu sync.Mutex
	var spillDir string
	abandoned := false
	opt.OnSpillDir = func(dir string) bool {
		mu.Lock()
		defer mu.Unlock()
		spillDir = dir
		return !abandoned
	}
	type result struct {
		in  *input
		err error
	}
	done := make(chan result, 1)
	go func() {
		in, err := readInput(stdin, opt)
		done <- result{in, err}
	}()
	select {
	case r := <-done:
		return r.in, r.err
	case <-ctx.Done():
		mu.Lock()
		abandoned = true
		if spillDir != "" {
			os.RemoveAll(spillDir)
		}
		mu.Unlock()
		return nil, context.Cause(ctx)
	}
}

// buildTools returns the tools of a headless run: the file tools with the
// policy's read filter, and bash in the workspace root with the process
// environment minus secrets and the provider keys.
func buildTools(ws *toolkit.Workspace, ap *approver, cfg execConfig, env environment, rt runTools) []toolkit.Tool {
	drop := append([]string{cfg.KeyVar}, providerKeyVars(cfg.Settings)...)
	return toolkit.Tools(ws, toolkit.Options{
		ReadFilter: ap.readFilter(),
		SkipLinked: ap.pol.GuardsReads(),
		Bash: toolkit.BashConfig{
			Env: env.environ(), EnvAllow: cfg.PassEnv, DropEnv: drop, PathAdd: pathAdd(cfg), Reaper: rt.reaper,
			TempDir: rt.tempDir, Sandbox: sandboxConfig(rt.sandbox, cfg.shellSettings(), env),
		},
	})
}

// runTools is what a run decides for its tools before the loop: the
// sandbox state, the private temporary directory and the reaper.
type runTools struct {
	sandbox sandbox.State
	tempDir string
	reaper  *toolkit.Reaper // shared with the bash tool; the run sweeps it at its end
}

// newHooks returns the runner of the configured hooks, which run with
// the bash tool's environment; nil when there are none.
func (cfg execConfig) newHooks(env environment, root, sessionID string, sess *sessionLog, emit func(Event), reaper *toolkit.Reaper) *hookRunner {
	if cfg.Settings == nil {
		return nil
	}
	opt := hookOptions{
		Hooks: cfg.Settings.Hooks, Workspace: root,
		Env: env.environ(), EnvAllow: cfg.PassEnv, DropEnv: append([]string{cfg.KeyVar}, providerKeyVars(cfg.Settings)...),
		PathAdd: pathAdd(cfg), SessionID: sessionID, Reaper: reaper,
	}
	if p := sess.Path(); p != "" {
		opt.Transcript = p
		if opt.SessionID == "" {
			opt.SessionID = strings.TrimSuffix(filepath.Base(p), ".jsonl")
		}
	}
	return newHookRunner(opt, emit)
}

// pathAdd returns the directories the configuration adds to bash's PATH.
func pathAdd(cfg execConfig) []string {
	if cfg.Settings == nil {
		return nil
	}
	return cfg.Settings.Bash.PathAdd
}
