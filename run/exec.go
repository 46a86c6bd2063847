package run

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/sandbox"
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
	// Start-up's code (flags, configuration, policy, MCP, skills) is
	// done with: its pages leave the resident set; and the heap grows by
	// half its live size between collections, not by all of it (issue
	// 41: the peak of a 50-turn run).
	sandbox.TrimResident()
	if _, set := env.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(50)
	}
	runErr := l.Resume(ctx, history, open, st.in.Text)
	err = finishRun(st.tr.Finish(runErr, notice), l, sinks.text, start, sinks.emit, runEnd{Verifier: st.verifier, Patch: st.patch})
	reportPending(stderr, redactedPending(sessionPendings(l.Pending()), sinks.red), st.sess.Path(), st.plan.StoreDir())
	if cfg.LearnPolicy != "" {
		if lerr := learnPolicy([]string{st.sess.Path()}, "", cfg.LearnPolicy, stdout, stderr); lerr != nil && err == nil {
			err = lerr
		}
	}
	return err
}

// inputOptions is how the run reads its prompt and standard input.
func (cfg execConfig) inputOptions(notice func(string)) inputOptions {
	return inputOptions{
		Args: cfg.PromptArgs, PromptFile: cfg.PromptFile, NoStdin: cfg.NoStdin, Notice: notice,
		InlineMax: inlineMax(cfg.Settings), StdinMax: stdinMax(cfg.Settings), Optional: cfg.answering(),
	}
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
		Parallel:     cfg.Parallel,
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

// bashSettings returns what the run's bash tool takes from its settings.
func (cfg execConfig) bashSettings() bashSettings {
	return bashSettings{PassEnv: cfg.PassEnv, KeyVars: cfg.keyVars(), PathAdd: pathAdd(cfg), Shell: shellSettings(cfg.Settings)}
}

// pathAdd returns the directories the configuration adds to bash's PATH.
func pathAdd(cfg execConfig) []string {
	if cfg.Settings == nil {
		return nil
	}
	return cfg.Settings.Bash.PathAdd
}
