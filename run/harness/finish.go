package harness

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/hooks"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/structured"
	"github.com/rubichan/rubichan/run/telemetry"
)

// RunEnd is what a run adds to its closing summary besides the loop's
// tally: the --verify outcome (which [Finish] reads and resets for the
// next run; nil without --verify), the --patch to write, and the
// --json-schema check whose answer the result carries (nil without one).
type RunEnd struct {
	Verifier   *Verifier
	Patch      *PatchMode
	Structured *structured.Slot
	TraceID    string // the run's trace id; "" without telemetry
	// Telemetry, when on, is flushed before the closing summary, which
	// counts a trace that could not be sent; Warn shows its one warning.
	Telemetry *telemetry.Run
	Warn      func(string)
}

// Finish reports how the loop ended — its error, unless already shown
// (the engine announced it: [agent.Announced]) or not worth a line
// (stdout's reader gone) — writes the patch under
// --patch, flushes the run's telemetry ([telemetry.Run.Flush]), shows the
// closing summary, and returns the run's error.
func Finish(runErr error, l *agent.Agent, text *sink.Text, start time.Time, emit func(agent.Event), end RunEnd) error {
	code := exit.Code(runErr)
	var sig exit.SignalError
	var rep exit.Reported
	switch {
	case errors.As(runErr, &sig):
		code = sig.ExitCode()
		emit(agent.Event{Kind: agent.EventError, Err: runErr})
	case runErr != nil && !agent.Announced(runErr) && !errors.As(runErr, &rep) && !exit.IsBrokenPipe(runErr):
		emit(agent.Event{Kind: agent.EventError, Err: runErr})
	}
	sum := l.Summary(start)
	sum.ExitCode = code
	sum.Verified = end.Verifier.Outcome()
	sum.TraceID = end.TraceID
	sum.StructuredOutput = end.Structured.Output()
	end.Structured.Reset()
	// A run the model finished is whole, verified or matching its schema
	// or not; anything else stopped it midway.
	pi, perr := end.Patch.Write(code != exit.OK && code != exit.Verify && code != exit.Schema)
	switch {
	case perr != nil:
		emit(agent.Event{Kind: agent.EventError, Err: perr})
		if runErr == nil {
			runErr, sum.ExitCode = exit.Reported{Err: perr}, exit.Failure
		}
	case pi != nil:
		sum.Patch = pi
		emit(agent.Event{Kind: agent.EventNotice, Text: PatchLine(pi)})
	}
	if w := end.Telemetry.Flush(sum); w != "" {
		sum.TraceUnsent = true
		if end.Warn != nil {
			end.Warn(w)
		}
	}
	emit(agent.Event{Kind: agent.EventTurnDone, Summary: sum})
	if runErr == nil {
		return text.Err() // --output final writes at the end
	}
	return exit.Reported{Err: runErr}
}

// Interrupted returns err, or the run's interruption when ctx ended first.
func Interrupted(ctx context.Context, err error, emit func(agent.Event)) error {
	if ctx.Err() == nil {
		return err
	}
	cause := context.Cause(ctx)
	if errors.Is(cause, agent.ErrTimeout) {
		emit(agent.Event{Kind: agent.EventLimit, Text: "reached --timeout while reading standard input"})
		return exit.Reported{Err: &agent.LimitError{Kind: agent.LimitTimeout, Err: agent.ErrTimeout}}
	}
	emit(agent.Event{Kind: agent.EventError, Err: cause})
	return exit.Reported{Err: cause}
}

// WithRunTimeout bounds ctx by the run's --timeout (none when d is 0); its
// cause is then [agent.ErrTimeout].
func WithRunTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, agent.ErrTimeout)
}

// UnlessQuiet returns w, or io.Discard when quiet.
func UnlessQuiet(w io.Writer, quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return w
}

// DeferOnAsk says what makes a call that needs approval pause a headless
// run with the call pending: --on-ask, else the policy's headless_ask.
func DeferOnAsk(onAsk string, pol *policy.Policy, noSession bool) string {
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

// AbortOnAsk says what makes a call that needs approval stop a headless
// run: --on-ask, else the policy's headless_ask; "" when it is denied. A
// policy's "defer" with --no-session stops the run too: there is no
// session to resume.
func AbortOnAsk(onAsk string, pol *policy.Policy, noSession bool) string {
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

// NewHooks returns the runner of the hooks configured in lc, which run
// with the environment of the run's other commands (ce); nil when there
// are none.
func NewHooks(lc *config.Loaded, ce ChildEnv, root, sessionID string, sess *sink.SessionLog, emit func(agent.Event), rt Tools) *hooks.Runner {
	if lc == nil {
		return nil
	}
	opt := hooks.Options{
		Hooks: lc.Hooks, Workspace: root, Emit: emit,
		Env: ce.Environ, EnvAllow: ce.EnvAllow, DropEnv: ce.DropEnv, CallEnv: ce.CallEnv,
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
