package sink

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fatih/color"
	"github.com/rubichan/rubichan/run/agent"
)

// verboseMaxLines caps the tool output --verbose shows per call.
const verboseMaxLines = 200

// Activity renders everything but the model's text on stderr: one line
// per tool call and its outcome, denials, retries, limits, errors and the
// closing summary. With quiet it shows errors and limits only; with verbose
// it also shows each tool's output.
//
// It is safe for concurrent use: notices may come from another goroutine.
type Activity struct {
	mu      sync.Mutex
	w       io.Writer
	quiet   bool
	verbose bool
	pal     palette
	red     *agent.Redactor // secrets hidden in every line; nil hides nothing
	// group, when set, wraps the --verbose output of a tool or a check
	// (under GitHub Actions, a ::group:: with workflow commands stopped):
	// it opens the frame titled title and returns what closes it.
	group func(title string) (end func())
	// allowAll: --allow-all is on, which the closing summary says.
	allowAll bool
	// failedTail: a failed command's last lines show without verbose.
	failedTail bool
	// order shows the results of calls run at once in call order.
	order callOrder
}

// palette holds the colors of the activity lines, each switched on or off
// explicitly: fatih/color decides from os.Stdout by default, and stderr may
// differ.
type palette struct {
	tool, ok, fail, deny, dim, warn *color.Color
}

func newPalette(enabled bool) palette {
	p := palette{
		tool: color.New(color.FgCyan),
		ok:   color.New(color.FgGreen),
		fail: color.New(color.FgRed),
		deny: color.New(color.FgYellow),
		dim:  color.New(color.Faint),
		warn: color.New(color.FgYellow),
	}
	for _, c := range []*color.Color{p.tool, p.ok, p.fail, p.deny, p.dim, p.warn} {
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

// ColorEnabled decides whether stderr gets colors: --color always or never
// wins; auto means stderr is a terminal other than TERM=dumb and NO_COLOR
// is unset or empty.
func ColorEnabled(mode string, stderrIsTerminal bool, lookupEnv func(string) (string, bool)) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if v, ok := lookupEnv("NO_COLOR"); ok && v != "" {
		return false
	}
	if v, _ := lookupEnv("TERM"); v == "dumb" {
		return false
	}
	return stderrIsTerminal
}

// ActivityOptions are what the activity lines show and how.
type ActivityOptions struct {
	Quiet   bool            // errors and limits only
	Verbose bool            // each tool's output, every hook run
	Colors  bool            // ANSI colors
	Redact  *agent.Redactor // secrets hidden in every line; nil hides nothing
	// AllowAll says --allow-all is on: the closing summary says so.
	AllowAll bool
	// Group, when set, wraps the --verbose output of a tool or a check
	// (under GitHub Actions, a ::group::): it opens the frame titled title
	// and returns what closes it.
	Group func(title string) (end func())
	// FailedTail shows the last lines of a command that failed without
	// Verbose (line mode: the person sees why).
	FailedTail bool
}

// NewActivity returns an Activity writing to w (nil: nowhere).
func NewActivity(w io.Writer, o ActivityOptions) *Activity {
	if w == nil {
		w = io.Discard
	}
	return &Activity{w: w, quiet: o.Quiet, verbose: o.Verbose, pal: newPalette(o.Colors), red: o.Redact, group: o.Group, allowAll: o.AllowAll, failedTail: o.FailedTail}
}

func (s *Activity) line(format string, args ...any) {
	io.WriteString(s.w, s.red.Redact(fmt.Sprintf(format+"\n", args...)))
}

// Handle renders ev.
func (s *Activity) Handle(ev agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pal
	switch ev.Kind {
	case agent.EventError:
		s.line("%s", p.fail.Sprint("rubichan: "+agent.Shown(ev.Err.Error())))
	case agent.EventLimit:
		s.line("%s", p.fail.Sprint("rubichan: stopped: "+agent.Shown(ev.Text)))
	case agent.EventStreamCut:
		// Shown even when quiet: it explains a second answer on stdout.
		s.line("%s", p.warn.Sprint("⚠ the retried answer differs from the partial answer above; it follows in full"))
	}
	if s.quiet {
		return
	}
	switch ev.Kind {
	case agent.EventToolCall, agent.EventToolAllowed, agent.EventToolDenied, agent.EventToolResult, agent.EventHook:
	default:
		for _, held := range s.order.flush() {
			s.toolResult(held.Tool, held.Result)
		}
	}
	switch ev.Kind {
	case agent.EventNotice:
		s.line("%s", p.dim.Sprint("rubichan: "+agent.Shown(ev.Text)))
	case agent.EventRetry:
		r := ev.Retry
		s.line("%s", p.warn.Sprintf("↻ retrying in %s (%s), attempt %d failed", formatDuration(r.Wait), agent.Shown(r.Reason), r.Attempt))
	case agent.EventToolCall:
		t := ev.Tool
		if t.Summary == "" {
			s.line("%s %s", p.tool.Sprint("▸"), p.tool.Sprint(agent.Clip(t.Name, 60)))
		} else {
			s.line("%s %s  %s", p.tool.Sprint("▸"), p.tool.Sprint(agent.Clip(t.Name, 60)), agent.Clip(t.Summary, 120))
		}
		s.order.announce(t.ID)
	case agent.EventToolDenied:
		d := ev.Denial
		msg := fmt.Sprintf("⊘ denied by %s: %s", agent.Shown(d.Rule), agent.Clip(d.Fact, 100))
		if d.Pending {
			msg = fmt.Sprintf("⏸ pending approval (%s): %s", agent.Shown(d.Rule), agent.Clip(d.Fact, 100))
		} else if d.Reason != "" {
			msg += " (" + agent.Clip(d.Reason, 160) + ")"
		}
		if len(d.Allow) > 0 && !d.Pending {
			msg += " (allow with " + agent.Clip(AllowFlags(d.Allow), 200) + ")"
		} else if d.Remedy != "" && !d.Pending {
			msg += " — " + agent.Clip(d.Remedy, 400)
		}
		s.line("%s", p.deny.Sprint(msg))
	case agent.EventToolResult:
		for _, r := range s.order.result(ev) {
			if !r.Result.NotRun { // the denial line said it
				s.toolResult(r.Tool, r.Result)
			}
		}
	case agent.EventHook:
		s.hook(ev.Hook)
	case agent.EventCompaction:
		c := ev.Compaction
		s.line("%s", p.dim.Sprintf("⇣ compacted the conversation: about %d → %d tokens, %d turns summarised", c.TokensBefore, c.TokensAfter, c.TurnsSummarised))
	case agent.EventSubquery:
		s.subquery(ev.Subquery)
	case agent.EventVerifyStart:
		s.line("%s %s  %s", p.tool.Sprint("▸"), p.tool.Sprint("verify"), agent.Clip(ev.Verify.Command, 120))
	case agent.EventVerify:
		s.verifyResult(ev.Verify)
	case agent.EventTurnDone:
		line := formatSummary(ev.Summary)
		if s.allowAll {
			line += " · allow-all"
		}
		s.line("%s", p.dim.Sprint(line))
	}
}

// hook shows what a hook changed: a stop hook sending the model back, a
// note added to a result; with verbose, every hook run. Denials show as
// EventToolDenied and failures as warnings.
func (s *Activity) hook(h *agent.HookInfo) {
	p := s.pal
	switch {
	case h.Decision == string(agent.HookContinue):
		s.line("%s", p.warn.Sprintf("↺ stop hook %s sends the model back: %s", agent.Clip(h.Name, 60), agent.Clip(h.Reason, 160)))
	case h.Decision == string(agent.HookRewrite):
		s.line("%s", p.warn.Sprintf("  hook %s rewrote the arguments: %s", agent.Clip(h.Name, 60), agent.Clip(h.Reason, 160)))
	case h.Decision == string(agent.HookAppend):
		s.line("%s", p.dim.Sprintf("  hook %s adds to the result: %s", agent.Clip(h.Name, 60), agent.Clip(h.Reason, 160)))
	case s.verbose:
		s.line("%s", p.dim.Sprintf("  hook %s (%s): %s · %s", agent.Clip(h.Name, 60), h.Event, h.Decision, formatDuration(h.Duration)))
	}
}

func (s *Activity) toolResult(t *agent.ToolCallInfo, r *agent.ToolResultInfo) {
	p := s.pal
	var what string
	if t != nil && s.order.named(t.ID) {
		// Other calls were open with this one (calls run at once): name
		// the call.
		what = agent.Clip(t.Name, 60) + "  " + agent.Clip(t.Summary, 60) + ": "
		s.order.done(t.ID)
	}
	switch {
	case r.ExitCode != nil:
		what += fmt.Sprintf("exit %d", *r.ExitCode)
	case r.IsError:
		what += agent.Clip(FirstLine(r.Content), 100)
	case len(r.Changed) > 0:
		what += "changed " + agent.Shown(strings.Join(r.Changed, ", "))
	default:
		what += "ok"
	}
	if r.IsError {
		s.line("%s", p.fail.Sprintf("✗ %s · %s", what, formatDuration(r.Duration)))
	} else {
		s.line("%s", p.ok.Sprintf("✓ %s · %s", what, formatDuration(r.Duration)))
	}
	if !s.verbose && s.failedTail && r.IsError && r.ExitCode != nil {
		s.output(tail(r.Content, verifyTailLines))
	}
	if s.verbose {
		title := "output"
		if t != nil {
			title = "output of " + agent.Clip(t.Name, 60)
			if t.Summary != "" {
				title += ": " + agent.Clip(t.Summary, 100)
			}
		}
		s.framed(title, r.Content)
	}
}

// framed shows output under its line, inside the frame of s.group if any.
func (s *Activity) framed(title, content string) {
	if s.group != nil && content != "" {
		defer s.group(s.red.Redact(title))()
	}
	s.output(content)
}

// output shows a command's output under its line, at most verboseMaxLines.
func (s *Activity) output(content string) {
	p := s.pal
	if content != "" {
		lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
		extra := 0
		if len(lines) > verboseMaxLines {
			extra = len(lines) - verboseMaxLines
			lines = lines[:verboseMaxLines]
		}
		for _, l := range lines {
			s.line("%s%s", p.dim.Sprint("  │ "), agent.Shown(l))
		}
		if extra > 0 {
			s.line("%s", p.dim.Sprintf("  │ … %d more lines", extra))
		}
	}
}

// verifyResult shows how a --verify command ended: "✓ passed · 4.2s" or
// "✗ exit 1 · 4.2s", and its output with --verbose.
func (s *Activity) verifyResult(v *agent.VerifyInfo) {
	p := s.pal
	switch {
	case v.Passed:
		s.line("%s", p.ok.Sprintf("✓ passed · %s", formatDuration(v.Duration)))
	case v.ExitCode != nil:
		s.line("%s", p.fail.Sprintf("✗ exit %d · %s", *v.ExitCode, formatDuration(v.Duration)))
	default:
		s.line("%s", p.fail.Sprintf("✗ %s · %s", agent.Clip(stopNote(v.Output), 100), formatDuration(v.Duration)))
	}
	switch {
	case s.verbose && !v.Passed:
		s.framed("output of verify: "+agent.Clip(v.Command, 100), v.Output)
	case !v.Passed && v.Attempt >= v.Max:
		// The last attempt failed and the run stops: its reason is the
		// end of the output, shown without -v too.
		s.framed("output of verify: "+agent.Clip(v.Command, 100), tail(v.Output, verifyTailLines))
	}
}

// verifyTailLines is how many of a failed --verify's last lines stderr
// shows without --verbose.
const verifyTailLines = 10

// tail is the last n lines of out, after a line saying how many came
// before them.
func tail(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) <= n {
		return out
	}
	return fmt.Sprintf("… %d earlier lines\n", len(lines)-n) + strings.Join(lines[len(lines)-n:], "\n")
}

// stopNote is why a command that did not exit ended, from the bash tool's
// notes at the end of its output: "timed out after 10m0s" or the signal.
func stopNote(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for _, l := range lines {
		if why, ok := strings.CutPrefix(l, "[timed out after "); ok {
			why, _, _ = strings.Cut(why, ";")
			return "timed out after " + why
		}
	}
	return strings.Trim(lines[len(lines)-1], "[]")
}

// formatSummary renders "4 turns · 12.3k in / 1.1k out tokens · 18.2s",
// followed by " · $0.0123" when the model's price is known and
// " · trace not sent" when the telemetry's collector could not be reached.
func formatSummary(sum *agent.Summary) string {
	turns := "turns"
	if sum.Turns == 1 {
		turns = "turn"
	}
	line := fmt.Sprintf("%d %s · %s in / %s out tokens · %s",
		sum.Turns, turns, FormatTokens(sum.InputTokens), FormatTokens(sum.OutputTokens), formatDuration(sum.Elapsed))
	if sum.Denials > 0 {
		line += fmt.Sprintf(" · %d denied", sum.Denials)
	}
	switch {
	case sum.Subqueries == 1:
		line += " · 1 sub-query"
	case sum.Subqueries > 1:
		line += fmt.Sprintf(" · %d sub-queries", sum.Subqueries)
	}
	if sum.CostKnown {
		line += " · " + agent.FormatUSD(sum.CostUSD)
	}
	if sum.TraceUnsent {
		line += " · trace not sent"
	}
	return line
}

// AllowFlags writes --allow rules as shell words a user can paste:
// --allow 'write:notes.txt'.
func AllowFlags(rules []string) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = "--allow '" + strings.ReplaceAll(r, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

// FormatTokens renders 812, 12.3k or 1.2M.
func FormatTokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// formatDuration renders 12ms, 0.4s, 1.2s or 3m05s.
func formatDuration(d time.Duration) string {
	switch {
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
}

// Whole is s on one line, in full, for what a person approves (a
// pending call's facts, line mode's question): a clip could cut off the
// part that acts, and flattening a line break to a space would make a
// second command read as words of the first, so a line break is written
// \n; the control characters are shown (see [agent.Shown]).
func Whole(s string) string {
	return agent.Shown(strings.ReplaceAll(s, "\n", `\n`))
}

// FirstLine is the first line of s, trimmed.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
