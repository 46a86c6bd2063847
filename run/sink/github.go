package sink

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/ghactions"
)

// maxDenialWarnings caps the ::warning:: annotations of denials; one more
// says how many were left out.
const maxDenialWarnings = 10

// GitHub is the sink of a run under GitHub Actions: it neutralises
// workflow commands in everything rubichan prints on stderr (out wraps
// it) and, through the text sink, stdout; it annotates denials
// (::warning::) and the failure (::error::), groups --verbose tool output,
// and at the end appends the job summary to $GITHUB_STEP_SUMMARY.
//
// It is safe for concurrent use.
type GitHub struct {
	mu          sync.Mutex
	out         *ghactions.Writer // stderr, neutralised
	summaryPath string            // $GITHUB_STEP_SUMMARY; "" writes none
	red         *agent.Redactor
	sum         ghactions.Summary
	calls       map[string]int // a call's id → its row in sum.Calls
	warned      int            // denial warnings written, or left out
	finished    bool
}

// GitHubRun is what the job summary says of a run before it starts.
type GitHubRun struct {
	Provider, Model string
	Task            string          // the prompt, shown redacted
	Redact          *agent.Redactor // secrets hidden in the summary and annotations
	AllowAll        bool            // --allow-all is on
}

// NewGitHub returns the reporter of a run under GitHub Actions: stderr is
// what it neutralises ([GitHub.Out]), summaryPath is $GITHUB_STEP_SUMMARY
// ("" writes none).
func NewGitHub(stderr io.Writer, summaryPath string) *GitHub {
	return &GitHub{out: ghactions.NewWriter(stderr), summaryPath: summaryPath, calls: map[string]int{}}
}

// Out is stderr, with workflow commands neutralised.
func (g *GitHub) Out() *ghactions.Writer { return g.out }

// Begin records what the summary says of the run before it starts; a nil
// reporter (not under GitHub Actions) does nothing.
func (g *GitHub) Begin(r GitHubRun) {
	if g == nil {
		return // not under GitHub Actions
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.red = r.Redact
	g.sum.Provider, g.sum.Model = r.Provider, r.Model
	g.sum.Task = r.Redact.Redact(r.Task)
	g.sum.AllowAll = r.AllowAll
}

// SetSession records the session file.
func (g *GitHub) SetSession(path string) {
	g.mu.Lock()
	g.sum.Session = path
	g.mu.Unlock()
}

// Handle takes one event of the run.
func (g *GitHub) Handle(ev agent.Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch ev.Kind {
	case agent.EventToolCall:
		if len(g.sum.Calls) >= ghactions.MaxCalls {
			g.sum.MoreCalls++
			return
		}
		g.calls[ev.Tool.ID] = len(g.sum.Calls)
		g.sum.Calls = append(g.sum.Calls, ghactions.Call{Tool: ev.Tool.Name, Target: g.red.Redact(ev.Tool.Summary)})
	case agent.EventToolAllowed:
		g.update(ev.Tool, func(c *ghactions.Call) { c.Decision, c.Rule = "allow", ev.Allow.Rule })
	case agent.EventToolDenied:
		g.denied(ev.Tool, ev.Denial)
	case agent.EventToolResult:
		g.result(ev.Tool, ev.Result)
	case agent.EventVerify:
		g.sum.VerifyRuns++
	case agent.EventError:
		g.sum.Error = g.red.Redact(ev.Err.Error())
	case agent.EventTurnDone:
		g.done(ev.Summary)
	}
}

// update changes the row of call t, if it has one.
func (g *GitHub) update(t *agent.ToolCallInfo, f func(*ghactions.Call)) {
	if t == nil {
		return
	}
	if i, ok := g.calls[t.ID]; ok {
		f(&g.sum.Calls[i])
	}
}

// denied records a denial in the table and, up to maxDenialWarnings,
// annotates it.
func (g *GitHub) denied(t *agent.ToolCallInfo, d *agent.DenialInfo) {
	decision := "deny"
	switch {
	case d.Pending:
		decision = "pending"
	case d.Ask:
		decision = "ask"
	}
	g.update(t, func(c *ghactions.Call) {
		c.Decision, c.Rule, c.Reason, c.Remedy = decision, d.Rule, g.red.Redact(d.Reason), g.red.Redact(d.Remedy)
	})
	if d.Pending {
		return
	}
	g.warned++
	if g.warned > maxDenialWarnings {
		return
	}
	name := ""
	if t != nil {
		name = agent.Clip(t.Name, 60) + ": "
	}
	msg := name + agent.Clip(d.Fact, 200)
	if d.Reason != "" {
		msg += " — " + agent.Clip(d.Reason, 200)
	}
	if len(d.Allow) > 0 {
		msg += " (allow with " + agent.Clip(AllowFlags(d.Allow), 200) + ")"
	}
	g.out.Command("warning", g.red.Redact(msg), "title", "rubichan: denied by "+agent.Clip(d.Rule, 80))
}

// result records a call's outcome and the files it changed.
func (g *GitHub) result(t *agent.ToolCallInfo, r *agent.ToolResultInfo) {
	for _, f := range r.Changed {
		if !slices.Contains(g.sum.Changed, f) {
			g.sum.Changed = append(g.sum.Changed, f)
		}
	}
	g.update(t, func(c *ghactions.Call) {
		c.Failed = r.IsError && !r.NotRun
		switch {
		case r.NotRun:
			c.Outcome = "not run"
		case r.ExitCode != nil:
			c.Outcome = fmt.Sprintf("exit %d", *r.ExitCode)
		case r.IsError:
			c.Outcome = g.red.Redact(FirstLine(r.Content))
		case len(r.Changed) > 0:
			c.Outcome = "changed " + strings.Join(r.Changed, ", ")
		default:
			c.Outcome = "ok"
		}
	})
}

// done records the run's closing tally.
func (g *GitHub) done(s *agent.Summary) {
	g.sum.Turns, g.sum.ToolCalls, g.sum.Denials = s.Turns, s.ToolCalls, s.Denials
	g.sum.InputTokens, g.sum.OutputTok = s.InputTokens, s.OutputTokens
	g.sum.CostUSD, g.sum.CostKnown, g.sum.Elapsed = s.CostUSD, s.CostKnown, s.Elapsed
	g.sum.ExitCode, g.sum.Verified, g.sum.TraceID = s.ExitCode, s.Verified, s.TraceID
	if p := s.Patch; p != nil {
		g.sum.Patch = &ghactions.Patch{Path: p.Path, Files: p.Files, Base: p.BaseCommit, Dirty: p.DirtyBase, Partial: p.Partial, SHA256: p.SHA256}
	}
}

// Group opens a ::group:: titled title with workflow commands stopped
// until the returned end closes it: the --verbose output of a tool.
func (g *GitHub) Group(title string) (end func()) {
	g.out.Command("group", title)
	resume, err := g.out.StopCommands()
	return func() {
		if err == nil {
			resume()
		}
		g.out.Command("endgroup", "")
	}
}

// Finish ends the run's report once it has ended with err and exit code
// code: the ::error:: annotation of a failure, and the job summary
// appended to $GITHUB_STEP_SUMMARY. A summary that cannot be written is a
// warning: the run's own outcome stands. err is nil for a failure that
// has nothing to say (rubichan run without a command).
func (g *GitHub) Finish(err error, code int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.finished {
		return
	}
	g.finished = true
	g.sum.ExitCode, g.sum.ExitMeaning = code, exit.Meaning(code)
	if err != nil && g.sum.Error == "" {
		g.sum.Error = g.red.Redact(err.Error())
	}
	if g.warned > maxDenialWarnings {
		g.out.Command("warning", fmt.Sprintf("%d more denials; the job summary lists every call", g.warned-maxDenialWarnings), "title", "rubichan: denials")
	}
	if code != exit.OK {
		msg := g.sum.Error
		if msg == "" {
			msg = g.sum.ExitMeaning
		}
		// The error may quote a file, a server or the model: the log
		// shows its control characters.
		g.out.Command("error", agent.Shown(msg), "title", fmt.Sprintf("rubichan failed (exit %d: %s)", code, g.sum.ExitMeaning))
	}
	g.out.Flush()
	if g.summaryPath == "" {
		return
	}
	if werr := g.appendSummary(); werr != nil {
		g.out.Command("warning", "job summary: "+werr.Error(), "title", "rubichan")
	}
}

// appendSummary appends the Markdown summary to the summary file.
func (g *GitHub) appendSummary() error {
	f, err := os.OpenFile(g.summaryPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := g.sum.WriteMarkdown(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
