package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/hooks"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/urfave/cli/v2"
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
   rubichan exec --session-id pr-7 "fix the failing test"; rubichan exec --resume pr-7 "address the review"
   rubichan exec --on-ask defer --session-id rel "publish"; rubichan exec --resume rel --approve all

Exit codes: 0 done, 1 runtime failure, 2 usage or configuration error,
3 stopped by the policy or paused for an approval (--on-ask defer),
4 a limit was reached, 5 the model provider failed, 6 --verify never passed,
130/143 interrupted by SIGINT/SIGTERM, 141 stdout closed by its reader.`

// execCommand is the exec command; its runs write to early's sinks.
func execCommand(stdin io.Reader, env environment, early earlyOutput) *cli.Command {
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
			cfg.github = early.github
			return runExec(c.Context, cfg, stdin, c.App.Writer, c.App.ErrWriter, env, early.json)
		},
	}
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
		js = newJSONSink(newJSONShown(stdout), cfg.Output == outputStreamJSON, newSessionID(start), nil)
		defer func() { js.Finish(err, exitCode(err)) }()
	}
	sinks := newRunSinks(cfg, js, stdout, stderr, env, stopRun)
	defer sinks.close()
	notice := func(s string) { sinks.emit(Event{Kind: EventNotice, Text: s}) }
	ctx, cancelTimeout := withRunTimeout(ctx, cfg.Timeout)
	defer cancelTimeout()
	st, err := openStack(ctx, &cfg, stackInput{stdin: stdin, start: start}, stdout, stderr, env, sinks)
	if err != nil {
		return err
	}
	defer st.close()
	l := st.loop
	history, open := st.plan.Conversation(cfg.Resolved.Type)
	runErr := l.Resume(ctx, history, open, st.in.Text)
	err = finishRun(st.tr.Finish(runErr, notice), l, sinks.text, start, sinks.emit, runEnd{verifier: st.verifier, patch: st.patch})
	reportPending(stderr, redactedPending(sessionPendings(l.Pending()), sinks.red), st.sess.Path(), st.plan.StoreDir())
	return err
}

// inputOptions is how the run reads its prompt and standard input.
func (cfg execConfig) inputOptions(notice func(string)) inputOptions {
	return inputOptions{
		Args: cfg.PromptArgs, PromptFile: cfg.PromptFile, NoStdin: cfg.NoStdin, Notice: notice,
		InlineMax: inlineMax(cfg.Settings), StdinMax: stdinMax(cfg.Settings), Optional: cfg.answering(),
	}
}

// withRunTimeout bounds ctx by the run's --timeout (none when d is 0); its
// cause is then [agent.ErrTimeout].
func withRunTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, agent.ErrTimeout)
}

// enterPatchMode starts --patch, if asked: from here on the run works in
// the private copy (cfg.Dir). leave writes the patch of a run that ended
// before the loop (its (empty) patch; after finishRun it does nothing) and
// removes the copy.
func enterPatchMode(ctx context.Context, cfg *execConfig, env environment, stdout io.Writer, notice func(string)) (pm *patchMode, leave func(), err error) {
	pm, err = startPatchMode(ctx, *cfg, env, stdout)
	if err != nil || pm == nil {
		return pm, func() { pm.Close() }, err
	}
	cfg.Dir = pm.Root()
	return pm, func() {
		if pi, err := pm.Write(true); err == nil && pi != nil {
			notice(patchLine(pi))
		}
		pm.Close()
	}, nil
}

// unlessQuiet returns w, or io.Discard when quiet.
func unlessQuiet(w io.Writer, quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return w
}

// runEnd is what a run adds to its closing summary besides the loop's
// tally: the --verify outcome (which finishRun reads and resets for the
// next run; nil without --verify) and the --patch to write.
type runEnd struct {
	verifier *verifier
	patch    *patchMode
}

// policySource returns where the run's policy comes from: a headless
// run's, in its workspace.
func (cfg execConfig) policySource() policySource {
	return policySource{
		Dir: cfg.Dir, File: cfg.PolicyFile, Allow: cfg.Allow, Deny: cfg.Deny,
		TrustWorkspace: cfg.TrustWorkspace, Headless: true,
	}
}

// execLoopConfig makes what the turn loop of a headless run is built
// from: the spilled stdin, if any, opened read-only for the file tools;
// the tools behind the policy; the system prompt; the limits and the
// model client on the run's traffic; and it starts serving the run's
// sub-queries until ctx ends. It returns the system prompt's parts for
// the session. The caller adds the seams that need the session log (the
// answers, the hooks, the verifiers, the asker) and builds the loop.
func execLoopConfig(ctx context.Context, cfg execConfig, ws *toolkit.Workspace, pol *policy.Policy, sp *spill, budget *Budget, env environment, tr *traffic, emit func(Event), rt runTools) (loopConfig, streamer, *approver, []session.PromptPart, error) {
	spillDir := ""
	if sp != nil {
		spillDir = sp.Dir
		if err := ws.AddRoot(spillDir, false); err != nil {
			return loopConfig{}, nil, nil, nil, fmt.Errorf("run: open spilled stdin: %w", err)
		}
	}
	ap := harness.NewApprover(pol, ws, spillDir, cfg.chat)
	parts, err := systemPromptParts(promptOptions{
		Root: ws.Root(), Now: env.today(), Replace: cfg.SystemPrompt, Append: cfg.AppendSystem, NoContextFiles: cfg.NoContextFiles,
		Readable: pol.ReadFilter(), Subqueries: (sp != nil || cfg.Subqueries) && !cfg.NoSubqueries, LineMode: cfg.chat,
	})
	if err != nil {
		return loopConfig{}, nil, nil, nil, err
	}
	// The tools first: the approver learns the bash tool's variables
	// before anything, a sub-query among them, is judged.
	tools := buildTools(ws, ap, cfg.bashSettings(), env, rt)
	rt.Queries.Serve(ctx, newSubqueries(cfg.subquerySettings(), ws, ap.Judge, budget, tr, emit))
	return loopConfig{
		Model:        cfg.Model,
		System:       joinParts(parts),
		Tools:        tools,
		MaxTurns:     cfg.MaxTurns,
		MaxToolCalls: cfg.MaxToolCalls,
		MaxDenials:   pol.MaxDenials(),
		AbortOnAsk:   abortOnAsk(cfg.OnAsk, pol, cfg.NoSession),
		DeferOnAsk:   deferOnAsk(cfg.OnAsk, pol, cfg.NoSession),
		Preview:      previewDiff,
		Timeout:      cfg.Timeout,
		Budget:       budget,
		Retry:        llm.DefaultRetryPolicy(),
		Redact:       newRedactor(cfg.secrets(env)),
		Compact:      compactSettings(cfg.Settings, cfg.Model, cfg.NoCompact, emit),
		Clock:        tr.Clock,
	}, newProviderClient(cfg.Resolved, streamLimits(cfg.Settings), tr.HTTPClient), ap, parts, nil
}

// deferOnAsk says what makes a call that needs approval pause a headless
// run with the call pending: --on-ask, else the policy's headless_ask.
func deferOnAsk(onAsk string, pol *policy.Policy, noSession bool) string {
	switch {
	case noSession:
		return ""
	case onAsk == "defer":
		return "--on-ask is defer"
	case onAsk == "" && pol.HeadlessAsk() == policy.AskDefer:
		return "the policy's headless_ask is defer"
	}
	return ""
}

// abortOnAsk says what makes a call that needs approval stop a headless
// run: --on-ask, else the policy's headless_ask; "" when it is denied. A
// policy's "defer" with --no-session stops the run too: there is no
// session to resume.
func abortOnAsk(onAsk string, pol *policy.Policy, noSession bool) string {
	switch {
	case noSession && onAsk == "" && pol.HeadlessAsk() == policy.AskDefer:
		return "the policy's headless_ask is defer, but --no-session keeps no session to resume"
	case onAsk == "abort":
		return "--on-ask is abort"
	case onAsk == "" && pol.HeadlessAsk() == policy.AskAbort:
		return "the policy's headless_ask is abort"
	}
	return ""
}

// finishRun reports how the loop ended — its error, unless already shown
// (the engine announced it: [agent.Announced]) or not worth a line
// (stdout's reader gone) — writes the patch under
// --patch, shows the closing summary, and returns the run's error.
func finishRun(runErr error, l *loop, text *textSink, start time.Time, emit func(Event), end runEnd) error {
	code := exitCode(runErr)
	var sig SignalError
	var rep reportedError
	switch {
	case errors.As(runErr, &sig):
		code = sig.ExitCode()
		emit(Event{Kind: EventError, Err: runErr})
	case runErr != nil && !agent.Announced(runErr) && !errors.As(runErr, &rep) && !brokenPipe(runErr):
		emit(Event{Kind: EventError, Err: runErr})
	}
	sum := l.Summary(start)
	sum.ExitCode = code
	sum.Verified = end.verifier.Outcome()
	// A run the model finished is whole, verified or not; anything else
	// stopped it midway.
	pi, perr := end.patch.Write(code != exitOK && code != exitVerify)
	switch {
	case perr != nil:
		emit(Event{Kind: EventError, Err: perr})
		if runErr == nil {
			runErr, sum.ExitCode = reportedError{Err: perr}, exitFailure
		}
	case pi != nil:
		sum.Patch = pi
		emit(Event{Kind: EventNotice, Text: patchLine(pi)})
	}
	emit(Event{Kind: EventTurnDone, Summary: sum})
	if runErr == nil {
		return text.Err() // --output final writes at the end
	}
	return reportedError{Err: runErr}
}

// interrupted returns err, or the run's interruption when ctx ended first.
func interrupted(ctx context.Context, err error, emit func(Event)) error {
	if ctx.Err() == nil {
		return err
	}
	cause := context.Cause(ctx)
	if errors.Is(cause, agent.ErrTimeout) {
		emit(Event{Kind: EventLimit, Text: "reached --timeout while reading standard input"})
		return reportedError{Err: &agent.LimitError{Kind: agent.LimitTimeout, Err: agent.ErrTimeout}}
	}
	emit(Event{Kind: EventError, Err: cause})
	return reportedError{Err: cause}
}

// bashSettings returns what the run's bash tool takes from its settings.
func (cfg execConfig) bashSettings() bashSettings {
	return bashSettings{PassEnv: cfg.PassEnv, KeyVars: cfg.keyVars(), PathAdd: pathAdd(cfg), Shell: shellSettings(cfg.Settings)}
}

// newHooks returns the runner of the hooks configured in lc, which run
// with the environment of the run's other commands (ce); nil when there
// are none.
func newHooks(lc *config.Loaded, ce childEnv, root, sessionID string, sess *sessionLog, emit func(Event), rt runTools) *hooks.Runner {
	if lc == nil {
		return nil
	}
	opt := hooks.Options{
		Hooks: lc.Hooks, Workspace: root, Emit: emit,
		Env: ce.Environ, EnvAllow: ce.EnvAllow, DropEnv: ce.DropEnv,
		PathAdd: ce.PathAdd, SessionID: sessionID, Reaper: rt.Reaper, TempDir: rt.TempDir, Sandbox: rt.Box,
	}
	if p := sess.Path(); p != "" {
		opt.Transcript = p
		if opt.SessionID == "" {
			opt.SessionID = strings.TrimSuffix(filepath.Base(p), ".jsonl")
		}
	}
	return hooks.New(opt)
}

// pathAdd returns the directories the configuration adds to bash's PATH.
func pathAdd(cfg execConfig) []string {
	if cfg.Settings == nil {
		return nil
	}
	return cfg.Settings.Bash.PathAdd
}
