package ghactions

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// MaxCalls caps the rows of the tool-call table; the rest are counted.
const MaxCalls = 100

// Summary is what the job summary of one run shows. The run package fills
// it from the run's events; every string may come from the model, a tool
// or the workspace, and is escaped when written.
type Summary struct {
	Task     string // the prompt; its first line is shown, clipped
	Provider string
	Model    string
	ExitCode int
	// ExitMeaning says what the exit code means ("the model finished its
	// answer").
	ExitMeaning string
	Error       string // the error that ended the run; "" when none
	Turns       int
	ToolCalls   int
	Denials     int
	InputTokens int64
	OutputTok   int64
	CostUSD     float64
	CostKnown   bool
	Elapsed     time.Duration
	Calls       []Call // at most MaxCalls
	MoreCalls   int    // the calls left out of Calls
	Changed     []string
	Patch       *Patch
	Verified    *bool // nil: no --verify
	VerifyRuns  int   // how many times the --verify command ran
	Session     string
	TraceID     string // the run's OpenTelemetry trace id; "" without telemetry
	// AllowAll says --allow-all was on.
	AllowAll bool
}

// Call is one row of the tool-call table.
type Call struct {
	Tool     string
	Target   string // the command, path or pattern
	Decision string // allow, deny, ask, pending
	Rule     string
	Reason   string // why it was denied
	Remedy   string // why no --allow rule can lift the denial, and the alternatives
	Outcome  string // "exit 0", "ok", "changed a.go", "not run", the error
	Failed   bool
}

// Patch is the patch a --patch run wrote.
type Patch struct {
	Path    string
	Files   int
	Base    string // the base commit; "" outside git
	Dirty   bool   // the base had uncommitted changes
	Partial bool   // the run did not finish
	SHA256  string
}

// Succeeded reports whether the run succeeded: exit code 0.
func (s *Summary) Succeeded() bool { return s.ExitCode == 0 }

// WriteMarkdown writes the job summary of s as GitHub-flavoured Markdown.
func (s *Summary) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	outcome := "✅ succeeded"
	if !s.Succeeded() {
		outcome = "❌ failed"
	}
	fmt.Fprintf(&b, "## rubichan: %s\n\n", outcome)
	if s.Task != "" {
		fmt.Fprintf(&b, "> %s\n\n", Text(firstLine(s.Task), 200))
	}
	b.WriteString("| | |\n| --- | --- |\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	row("Outcome", fmt.Sprintf("%s, exit code %d: %s", strings.TrimLeft(outcome, "✅❌ "), s.ExitCode, Text(s.ExitMeaning, 200)))
	if s.Error != "" {
		row("Error", Text(s.Error, 500))
	}
	if s.Model != "" {
		row("Model", Text(s.Provider, 60)+" / "+Text(s.Model, 100))
	}
	row("Turns", fmt.Sprintf("%d", s.Turns))
	row("Tokens", fmt.Sprintf("%d in / %d out", s.InputTokens, s.OutputTok))
	cost := "unknown (no price for the model)"
	if s.CostKnown {
		cost = fmt.Sprintf("$%.4f", s.CostUSD)
	}
	row("Cost", cost)
	row("Time", s.Elapsed.Round(100*time.Millisecond).String())
	row("Tool calls", fmt.Sprintf("%d (%d denied)", s.ToolCalls, s.Denials))
	if s.AllowAll {
		row("Policy", "**allow-all**: every tool call allowed inside the OS sandbox, except the secret denials and the guarded paths")
	}
	s.writeVerify(row)
	if s.TraceID != "" {
		row("Trace", Code(s.TraceID))
	}
	if s.Session != "" {
		row("Session", Code(s.Session))
	}
	b.WriteString("\n")
	s.writeCalls(&b)
	s.writeChanged(&b)
	s.writePatch(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (s *Summary) writeVerify(row func(k, v string)) {
	if s.Verified == nil {
		return
	}
	runs := "run"
	if s.VerifyRuns != 1 {
		runs = "runs"
	}
	if *s.Verified {
		row("Verification", fmt.Sprintf("passed (%d %s)", s.VerifyRuns, runs))
	} else {
		row("Verification", fmt.Sprintf("**failed** (%d %s)", s.VerifyRuns, runs))
	}
}

func (s *Summary) writeCalls(b *strings.Builder) {
	if len(s.Calls) == 0 {
		return
	}
	b.WriteString("### Tool calls\n\n| # | Tool | Call | Decision | Outcome |\n| --- | --- | --- | --- | --- |\n")
	for i, c := range s.Calls {
		decision := Text(c.Decision, 20)
		if c.Rule != "" {
			decision += " (" + Code(c.Rule) + ")"
		}
		if c.Reason != "" {
			decision += ": " + Text(c.Reason, 160)
		}
		if c.Remedy != "" {
			decision += " — " + Text(c.Remedy, 300)
		}
		if c.Decision == "deny" || c.Decision == "ask" {
			decision = "**" + decision + "**"
		}
		outcome := Text(c.Outcome, 120)
		if c.Failed {
			outcome = "✗ " + outcome
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s |\n", i+1, Text(c.Tool, 40), Code(clipRunes(c.Target, 120)), decision, outcome)
	}
	if s.MoreCalls > 0 {
		fmt.Fprintf(b, "\n…and %d more calls (the session file has them all).\n", s.MoreCalls)
	}
	b.WriteString("\n")
}

func (s *Summary) writeChanged(b *strings.Builder) {
	if len(s.Changed) == 0 {
		return
	}
	b.WriteString("### Files changed\n\n")
	for i, f := range s.Changed {
		if i == 50 {
			fmt.Fprintf(b, "- …and %d more\n", len(s.Changed)-50)
			break
		}
		fmt.Fprintf(b, "- %s\n", Code(f))
	}
	b.WriteString("\n")
}

func (s *Summary) writePatch(b *strings.Builder) {
	p := s.Patch
	if p == nil {
		return
	}
	b.WriteString("### Patch\n\n| | |\n| --- | --- |\n")
	fmt.Fprintf(b, "| File | %s |\n| Files | %d |\n", Code(p.Path), p.Files)
	base := "none (not a git repository)"
	if p.Base != "" {
		base = Code(p.Base)
		if p.Dirty {
			base += " with uncommitted changes"
		}
	}
	fmt.Fprintf(b, "| Base | %s |\n", base)
	if p.SHA256 != "" {
		fmt.Fprintf(b, "| SHA-256 | %s |\n", Code(p.SHA256))
	}
	if p.Partial {
		b.WriteString("| Complete | **no**: the run stopped before the model finished |\n")
	}
	b.WriteString("\n")
}

// Text makes s, clipped to max runes and flattened to one line, safe as
// Markdown text in a table cell: every character Markdown or HTML acts on
// is escaped.
func Text(s string, max int) string {
	s = clipRunes(s, max)
	var b strings.Builder
	for _, r := range s {
		switch {
		case strings.ContainsRune("\\`*_[]<>#!|~&@", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code makes s a Markdown code span on one line, with a fence longer than
// any run of backticks in it; "|" is escaped for tables.
func Code(s string) string {
	s = clipRunes(s, 300)
	if s == "" {
		return ""
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// clipRunes flattens s to one line of at most max runes, ending in … when
// cut, with control characters dropped.
func clipRunes(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	first, _, cut := strings.Cut(s, "\n")
	if cut {
		return first + " …"
	}
	return first
}
