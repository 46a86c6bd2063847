package run

import (
	"context"
	"io"
	"runtime/debug"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
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
   rubichan exec --json-schema triage.json "classify this failure" < build.log | jq -r .label

Exit codes: 0 done, 1 runtime failure, 2 usage or configuration error,
3 stopped by the policy or paused for an approval (--on-ask defer),
4 a limit was reached, 5 the model provider failed, 6 --verify never passed,
7 the answer did not match --json-schema, 130/143 interrupted by SIGINT/SIGTERM, 141 stdout closed by its reader.`

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
// as [exit.Reported]s carrying their exit code.
//
// machine, when not nil, is the sink of --output json or stream-json that
// [runMain] made before the arguments were parsed; it writes the result.
func runExec(ctx context.Context, cfg execConfig, stdin io.Reader, stdout, stderr io.Writer, env environment, machine *sink.JSON) (err error) {
	start := time.Now()
	// The packages' initialisation and the parsing of flags and
	// configuration are done with: their pages (most of the program)
	// leave the resident set before the run's own start-up adds its own
	// (issue 41: together they were a run's peak, 16 MB).
	sandbox.TrimResident()
	// A failed write on stdout stops the run: its answer is lost.
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	js := machine
	if js == nil && (cfg.Output == outputJSON || cfg.Output == outputStreamJSON) {
		// An app run without runMain: the result is written here.
		js = sink.NewJSON(sink.NewJSONShown(stdout), cfg.Output == outputStreamJSON, sink.NewSessionID(start), nil)
		defer func() { js.Finish(err, exit.Code(err)) }()
	}
	tel, endTelemetry := startTelemetry(ctx, cfg, env, stderr)
	defer endTelemetry()
	opts := cfg.sinkOptions(js, env, stopRun)
	opts.Observe = tel.Observe
	sinks := sink.New(stdout, stderr, opts)
	defer sinks.Close()
	notice := func(s string) { sinks.Emit(agent.Event{Kind: agent.EventNotice, Text: s}) }
	s := cfg.settings()
	ctx, cancelTimeout := harness.WithRunTimeout(ctx, s.Limits().Timeout)
	defer cancelTimeout()
	r, err := harness.Open(ctx, s, harness.OpenOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr, Env: env.Env,
		Sinks: sinks, Start: start, Build: sinkBuild(), Telemetry: tel})
	if err != nil {
		return err
	}
	defer r.Close()
	l := r.Agent
	history, open := r.Plan.Conversation(s.Provider.Type)
	// Start-up's code (flags, configuration, policy, MCP, skills) is
	// done with: its pages leave the resident set; and the heap grows by
	// half its live size between collections, not by all of it (issue
	// 41: the peak of a 50-turn run).
	sandbox.TrimResident()
	if _, set := env.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(50)
	}
	runErr := l.Resume(ctx, history, open, resumePrompt(r.Input.Text, history, open))
	// The end of a run (summary, session, sweep) runs code the loop did
	// not: the loop's pages go first, or the two together are the peak.
	sandbox.TrimResident()
	err = harness.Finish(r.Traffic.Finish(runErr, notice), l, sinks.Text(), start, sinks.Emit, harness.RunEnd{Verifier: r.Verifier, Patch: r.Patch, Structured: r.Structured, TraceID: tel.TraceID(), Telemetry: tel, Warn: telemetryWarn(stderr)})
	if werr := writeLastMessage(cfg.LastMessage, sinks.LastMessage()); werr != nil && err == nil {
		err = werr
	}
	sink.ReportPending(stderr, sink.RedactedPending(sink.SessionPendings(l.Pending()), sinks.Redactor()), r.Session.Path(), r.Plan.StoreDir(), redactedArgs(cfg.ResumeArgs, sinks.Redactor()))
	if cfg.LearnPolicy != "" {
		if lerr := learnPolicy([]string{r.Session.Path()}, "", cfg.LearnPolicy, stdout, stderr); lerr != nil && err == nil {
			err = lerr
		}
	}
	return err
}
