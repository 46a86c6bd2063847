package run

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fatih/color"
)

// verboseMaxLines caps the tool output --verbose shows per call.
const verboseMaxLines = 200

// activitySink renders everything but the model's text on stderr: one line
// per tool call and its outcome, denials, retries, limits, errors and the
// closing summary. With quiet it shows errors and limits only; with verbose
// it also shows each tool's output.
//
// It is safe for concurrent use: notices may come from another goroutine.
type activitySink struct {
	mu      sync.Mutex
	w       io.Writer
	quiet   bool
	verbose bool
	pal     palette
	red     *redactor // secrets hidden in every line; nil hides nothing
	// group, when set, wraps the --verbose output of a tool or a check
	// (under GitHub Actions, a ::group:: with workflow commands stopped):
	// it opens the frame titled title and returns what closes it.
	group func(title string) (end func())
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

// colorEnabled decides whether stderr gets colors: --color always or never
// wins; auto means stderr is a terminal other than TERM=dumb and NO_COLOR
// is unset or empty.
func colorEnabled(mode string, stderrIsTerminal bool, lookupEnv func(string) (string, bool)) bool {
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

func newActivitySink(w io.Writer, quiet, verbose, colors bool) *activitySink {
	if w == nil {
		w = io.Discard
	}
	return &activitySink{w: w, quiet: quiet, verbose: verbose, pal: newPalette(colors)}
}

func (s *activitySink) line(format string, args ...any) {
	io.WriteString(s.w, s.red.Redact(fmt.Sprintf(format+"\n", args...)))
}

func (s *activitySink) handle(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pal
	switch ev.Kind {
	case EventError:
		s.line("%s", p.fail.Sprint("rubichan: "+shown(ev.Err.Error())))
	case EventLimit:
		s.line("%s", p.fail.Sprint("rubichan: stopped: "+shown(ev.Text)))
	case EventStreamCut:
		// Shown even when quiet: it explains a repeated answer on stdout.
		s.line("%s", p.warn.Sprint("⚠ the partial answer above was interrupted; asking again"))
	}
	if s.quiet {
		return
	}
	switch ev.Kind {
	case EventNotice:
		s.line("%s", p.dim.Sprint("rubichan: "+shown(ev.Text)))
	case EventRetry:
		r := ev.Retry
		s.line("%s", p.warn.Sprintf("↻ retrying in %s (%s), attempt %d failed", formatDuration(r.Wait), shown(r.Reason), r.Attempt))
	case EventToolCall:
		t := ev.Tool
		if t.Summary == "" {
			s.line("%s %s", p.tool.Sprint("▸"), p.tool.Sprint(clip(t.Name, 60)))
		} else {
			s.line("%s %s  %s", p.tool.Sprint("▸"), p.tool.Sprint(clip(t.Name, 60)), clip(t.Summary, 120))
		}
	case EventToolDenied:
		d := ev.Denial
		msg := fmt.Sprintf("⊘ denied by %s: %s", shown(d.Rule), clip(d.Fact, 100))
		if d.Pending {
			msg = fmt.Sprintf("⏸ pending approval (%s): %s", shown(d.Rule), clip(d.Fact, 100))
		} else if d.Reason != "" {
			msg += " (" + clip(d.Reason, 160) + ")"
		}
		if len(d.Allow) > 0 && !d.Pending {
			msg += " (allow with " + clip(allowFlags(d.Allow), 200) + ")"
		}
		s.line("%s", p.deny.Sprint(msg))
	case EventToolResult:
		if !ev.Result.NotRun { // the denial line said it
			s.toolResult(ev.Tool, ev.Result)
		}
	case EventHook:
		s.hook(ev.Hook)
	case EventCompaction:
		c := ev.Compaction
		s.line("%s", p.dim.Sprintf("⇣ compacted the conversation: about %d → %d tokens, %d turns summarised", c.TokensBefore, c.TokensAfter, c.TurnsSummarised))
	case EventSubquery:
		s.subquery(ev.Subquery)
	case EventVerifyStart:
		s.line("%s %s  %s", p.tool.Sprint("▸"), p.tool.Sprint("verify"), clip(ev.Verify.Command, 120))
	case EventVerify:
		s.verifyResult(ev.Verify)
	case EventTurnDone:
		s.line("%s", p.dim.Sprint(formatSummary(ev.Summary)))
	}
}

// hook shows what a hook changed: a stop hook sending the model back, a
// note added to a result; with verbose, every hook run. Denials show as
// EventToolDenied and failures as warnings.
func (s *activitySink) hook(h *HookInfo) {
	p := s.pal
	switch {
	case h.Decision == hookContinue:
		s.line("%s", p.warn.Sprintf("↺ stop hook %s sends the model back: %s", clip(h.Name, 60), clip(h.Reason, 160)))
	case h.Decision == hookRewrite:
		s.line("%s", p.warn.Sprintf("  hook %s rewrote the arguments: %s", clip(h.Name, 60), clip(h.Reason, 160)))
	case h.Decision == hookAppend:
		s.line("%s", p.dim.Sprintf("  hook %s adds to the result: %s", clip(h.Name, 60), clip(h.Reason, 160)))
	case s.verbose:
		s.line("%s", p.dim.Sprintf("  hook %s (%s): %s · %s", clip(h.Name, 60), h.Event, h.Decision, formatDuration(h.Duration)))
	}
}

func (s *activitySink) toolResult(t *ToolCallInfo, r *ToolResultInfo) {
	p := s.pal
	var what string
	switch {
	case r.ExitCode != nil:
		what = fmt.Sprintf("exit %d", *r.ExitCode)
	case r.IsError:
		what = clip(firstLine(r.Content), 100)
	case len(r.Changed) > 0:
		what = "changed " + shown(strings.Join(r.Changed, ", "))
	default:
		what = "ok"
	}
	if r.IsError {
		s.line("%s", p.fail.Sprintf("✗ %s · %s", what, formatDuration(r.Duration)))
	} else {
		s.line("%s", p.ok.Sprintf("✓ %s · %s", what, formatDuration(r.Duration)))
	}
	if s.verbose {
		title := "output"
		if t != nil {
			title = "output of " + clip(t.Name, 60)
			if t.Summary != "" {
				title += ": " + clip(t.Summary, 100)
			}
		}
		s.framed(title, r.Content)
	}
}

// framed shows output under its line, inside the frame of s.group if any.
func (s *activitySink) framed(title, content string) {
	if s.group != nil && content != "" {
		defer s.group(s.red.Redact(title))()
	}
	s.output(content)
}

// output shows a command's output under its line, at most verboseMaxLines.
func (s *activitySink) output(content string) {
	p := s.pal
	if content != "" {
		lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
		extra := 0
		if len(lines) > verboseMaxLines {
			extra = len(lines) - verboseMaxLines
			lines = lines[:verboseMaxLines]
		}
		for _, l := range lines {
			s.line("%s%s", p.dim.Sprint("  │ "), shown(l))
		}
		if extra > 0 {
			s.line("%s", p.dim.Sprintf("  │ … %d more lines", extra))
		}
	}
}

// verifyResult shows how a --verify command ended: "✓ passed · 4.2s" or
// "✗ exit 1 · 4.2s", and its output with --verbose.
func (s *activitySink) verifyResult(v *VerifyInfo) {
	p := s.pal
	switch {
	case v.Passed:
		s.line("%s", p.ok.Sprintf("✓ passed · %s", formatDuration(v.Duration)))
	case v.ExitCode != nil:
		s.line("%s", p.fail.Sprintf("✗ exit %d · %s", *v.ExitCode, formatDuration(v.Duration)))
	default:
		s.line("%s", p.fail.Sprintf("✗ %s · %s", clip(stopNote(v.Output), 100), formatDuration(v.Duration)))
	}
	if s.verbose && !v.Passed {
		s.framed("output of verify: "+clip(v.Command, 100), v.Output)
	}
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
// followed by " · $0.0123" when the model's price is known.
func formatSummary(sum *Summary) string {
	turns := "turns"
	if sum.Turns == 1 {
		turns = "turn"
	}
	line := fmt.Sprintf("%d %s · %s in / %s out tokens · %s",
		sum.Turns, turns, formatTokens(sum.InputTokens), formatTokens(sum.OutputTokens), formatDuration(sum.Elapsed))
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
		line += " · " + formatUSD(sum.CostUSD)
	}
	return line
}

// allowFlags writes --allow rules as shell words a user can paste:
// --allow 'write:notes.txt'.
func allowFlags(rules []string) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = "--allow '" + strings.ReplaceAll(r, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

// formatTokens renders 812, 12.3k or 1.2M.
func formatTokens(n int64) string {
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

// whole is s on one line, in full, for what a person approves (a
// pending call's facts, line mode's question): a clip could cut off the
// part that acts, and flattening a line break to a space would make a
// second command read as words of the first, so a line break is written
// \n; the control characters are shown (see [shown]).
func whole(s string) string {
	return shown(strings.ReplaceAll(s, "\n", `\n`))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
