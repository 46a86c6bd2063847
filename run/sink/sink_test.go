package sink

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
)

func TestTextSink(t *testing.T) {
	t.Parallel()
	delta := func(s string) agent.Event { return agent.Event{Kind: agent.EventTextDelta, Text: s} }
	done := func(s string) agent.Event { return agent.Event{Kind: agent.EventMessageDone, Text: s} }
	tool := agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "bash", Summary: "ls"}}
	end := agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{}}
	tests := map[string]struct {
		final  bool
		events []agent.Event
		want   string
	}{
		"one message gets a final newline": {events: []agent.Event{delta("Hel"), delta("lo"), done("Hello"), end}, want: "Hello\n"},
		"newline kept":                     {events: []agent.Event{delta("Hi\n"), done("Hi\n"), end}, want: "Hi\n"},
		"newline between messages":         {events: []agent.Event{delta("Looking."), done("Looking."), tool, delta("Done."), done("Done."), end}, want: "Looking.\nDone.\n"},
		"message without text":             {events: []agent.Event{done(""), tool, delta("ok"), done("ok"), end}, want: "ok\n"},
		"stream cut then full answer":      {events: []agent.Event{delta("The ans"), {Kind: agent.EventStreamCut}, delta("The answer"), done("The answer"), end}, want: "The ans\nThe answer\n"},
		"only text reaches stdout":         {events: []agent.Event{{Kind: agent.EventNotice, Text: "note"}, tool, {Kind: agent.EventRetry, Retry: &agent.RetryInfo{}}, delta("x"), done("x"), {Kind: agent.EventLimit, Text: "max"}, end}, want: "x\n"},
		"final: last message only":         {final: true, events: []agent.Event{delta("Looking."), done("Looking."), tool, delta("Done"), done("Done"), end}, want: "Done\n"},
		"final: cut stream":                {final: true, events: []agent.Event{delta("par"), {Kind: agent.EventStreamCut}, delta("full"), done("full"), end}, want: "full\n"},
		"final: nothing said":              {final: true, events: []agent.Event{done(""), end}, want: ""},
		"nothing said":                     {events: []agent.Event{done(""), end}, want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			s := NewText(&b, TextOptions{Final: tc.final})
			for _, ev := range tc.events {
				s.Handle(ev)
			}
			if b.String() != tc.want {
				t.Errorf("stdout = %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// TestTextSinkTerminal checks that the model's text reaches a terminal with
// its control characters shown, and a pipe or file byte for byte: an
// answer prompted by a hostile log must not write the terminal's
// clipboard (OSC 52) or retitle it.
func TestTextSinkTerminal(t *testing.T) {
	t.Parallel()
	text := "ok \x1b]52;c;Y3VybCB4fHNo\x07 \x1b[2J\tdone\n"
	for name, tc := range map[string]struct {
		terminal bool
		want     string
	}{
		"terminal": {true, `ok \x1b]52;c;Y3VybCB4fHNo\x07 \x1b[2J` + "\tdone\n"},
		"pipe":     {false, text},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			s := NewText(&b, TextOptions{Final: false})
			s.terminal = tc.terminal
			for _, ev := range []agent.Event{{Kind: agent.EventTextDelta, Text: text}, {Kind: agent.EventMessageDone, Text: text}, {Kind: agent.EventTurnDone, Summary: &agent.Summary{}}} {
				s.Handle(ev)
			}
			if b.String() != tc.want {
				t.Errorf("stdout = %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// deltaRecorder records each Write separately, to show deltas are not held back.
type deltaRecorder struct{ writes []string }

func (d *deltaRecorder) Write(p []byte) (int, error) {
	d.writes = append(d.writes, string(p))
	return len(p), nil
}

func TestTextSinkStreamsEachDelta(t *testing.T) {
	t.Parallel()
	var rec deltaRecorder
	s := NewText(&rec, TextOptions{Final: false})
	s.Handle(agent.Event{Kind: agent.EventTextDelta, Text: "a"})
	if len(rec.writes) != 1 || rec.writes[0] != "a" {
		t.Fatalf("first delta not written at once: %q", rec.writes)
	}
	s.Handle(agent.Event{Kind: agent.EventTextDelta, Text: "b"})
	if len(rec.writes) != 2 {
		t.Fatalf("second delta not written at once: %q", rec.writes)
	}
}

func TestActivitySink(t *testing.T) {
	t.Parallel()
	zero, one := 0, 1
	events := []agent.Event{
		{Kind: agent.EventNotice, Text: "waiting for standard input"},
		{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "bash", Summary: "go test ./..."}},
		{Kind: agent.EventToolResult, Result: &agent.ToolResultInfo{ExitCode: &zero, Duration: 1200 * time.Millisecond, Content: "ok pkg\n"}},
		{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "bash", Summary: "go vet\n./..."}},
		{Kind: agent.EventToolResult, Result: &agent.ToolResultInfo{ExitCode: &one, IsError: true, Duration: 400 * time.Millisecond, Content: "vet: bad"}},
		{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "edit", Summary: "main.go"}},
		{Kind: agent.EventToolResult, Result: &agent.ToolResultInfo{Changed: []string{"main.go"}, Duration: 3 * time.Millisecond}},
		{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "read", Summary: "nope.go"}},
		{Kind: agent.EventToolResult, Result: &agent.ToolResultInfo{IsError: true, Content: "file not found: nope.go\nhint", Duration: time.Millisecond}},
		{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "bash", Summary: "curl x"}},
		{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: "ci-checks", Fact: "curl x", Reason: "no network"}},
		{Kind: agent.EventRetry, Retry: &agent.RetryInfo{Attempt: 1, Wait: 4 * time.Second, Reason: "429 rate limit"}},
		{Kind: agent.EventStreamCut},
		{Kind: agent.EventTextDelta, Text: "answer"},
		{Kind: agent.EventLimit, Text: "reached --max-turns 3"},
		{Kind: agent.EventError, Err: errors.New("anthropic: 401 authentication_error")},
		{Kind: agent.EventTurnDone, Summary: &agent.Summary{Turns: 4, InputTokens: 12345, OutputTokens: 1100, Elapsed: 18200 * time.Millisecond}},
	}
	normal := strings.Join([]string{
		"rubichan: waiting for standard input",
		"▸ bash  go test ./...",
		"✓ exit 0 · 1.2s",
		"▸ bash  go vet ./...",
		"✗ exit 1 · 0.4s",
		"▸ edit  main.go",
		"✓ changed main.go · 3ms",
		"▸ read  nope.go",
		"✗ file not found: nope.go · 1ms",
		"▸ bash  curl x",
		"⊘ denied by ci-checks: curl x (no network)",
		"↻ retrying in 4.0s (429 rate limit), attempt 1 failed",
		"⚠ the retried answer differs from the partial answer above; it follows in full",
		"rubichan: stopped: reached --max-turns 3",
		"rubichan: anthropic: 401 authentication_error",
		"4 turns · 12.3k in / 1.1k out tokens · 18.2s",
	}, "\n") + "\n"
	quiet := strings.Join([]string{
		"⚠ the retried answer differs from the partial answer above; it follows in full",
		"rubichan: stopped: reached --max-turns 3",
		"rubichan: anthropic: 401 authentication_error",
	}, "\n") + "\n"
	for name, tc := range map[string]struct {
		quiet, verbose bool
		want           string
	}{
		"normal": {want: normal},
		"quiet":  {quiet: true, want: quiet},
		"verbose": {verbose: true, want: strings.NewReplacer(
			"✓ exit 0 · 1.2s\n", "✓ exit 0 · 1.2s\n  │ ok pkg\n",
			"✗ exit 1 · 0.4s\n", "✗ exit 1 · 0.4s\n  │ vet: bad\n",
			"nope.go · 1ms\n", "nope.go · 1ms\n  │ file not found: nope.go\n  │ hint\n",
		).Replace(normal)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			s := NewActivity(&b, ActivityOptions{Quiet: tc.quiet, Verbose: tc.verbose, Colors: false})
			for _, ev := range events {
				s.Handle(ev)
			}
			if b.String() != tc.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

// TestActivityRemedyAndAllowAll checks that a denial no --allow rule can
// lift ends with its remedy (a denial with --allow rules names those
// instead, and a pending call neither), and that the closing summary says
// --allow-all was on.
func TestActivityRemedyAndAllowAll(t *testing.T) {
	t.Parallel()
	const remedy = "no rule can allow this: the built-in secret denials refuse .env whatever the rules say; read another file"
	events := []agent.Event{
		{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: "default-secrets", Fact: "read: .env", Reason: "common secret files", Remedy: remedy}},
		{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: "tools.shell", Fact: "go test", Reason: "the default is to ask", Allow: []string{"shell:go test"}}},
		{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: "opaque", Fact: "echo $X", Pending: true, Remedy: remedy}},
		{Kind: agent.EventTurnDone, Summary: &agent.Summary{Turns: 2, Denials: 2, Elapsed: time.Second}},
	}
	want := strings.Join([]string{
		"⊘ denied by default-secrets: read: .env (common secret files) — " + remedy,
		"⊘ denied by tools.shell: go test (the default is to ask) (allow with --allow 'shell:go test')",
		"⏸ pending approval (opaque): echo $X",
		"2 turns · 0 in / 0 out tokens · 1.0s · 2 denied · allow-all",
	}, "\n") + "\n"
	var b bytes.Buffer
	s := NewActivity(&b, ActivityOptions{AllowAll: true})
	for _, ev := range events {
		s.Handle(ev)
	}
	if b.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestActivityEscapesControls checks that text from the model, the tools
// and the workspace reaches stderr with its control characters shown, not
// sent: an escape sequence in a command or in a file the tool printed
// could retitle the terminal, write the clipboard (OSC 52) or hide lines.
func TestActivityEscapesControls(t *testing.T) {
	t.Parallel()
	one := 1
	events := []agent.Event{
		{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "bash", Summary: "echo \x1b]52;c;cm0gLXJmIH4=\x07 hi"}},
		{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "ba\x1b[8msh"}},
		{Kind: agent.EventToolDenied, Denial: &agent.DenialInfo{Rule: "opaque", Fact: "a\x1b[2Jb", Reason: "r\x9bc"}},
		{Kind: agent.EventNotice, Text: "c1 \u009b2J"},
		{Kind: agent.EventToolResult, Result: &agent.ToolResultInfo{ExitCode: &one, IsError: true, Content: "out\x1b[31mred\rover\u202eevil\ttab\n\xffbad"}},
		{Kind: agent.EventToolResult, Result: &agent.ToolResultInfo{IsError: true, Content: "no such file: \x1b[1mx"}},
		{Kind: agent.EventToolResult, Result: &agent.ToolResultInfo{Changed: []string{"a\x1bb"}}},
		{Kind: agent.EventError, Err: errors.New("tool bash: \x1b]0;t\x07")},
	}
	var b bytes.Buffer
	s := NewActivity(&b, ActivityOptions{Quiet: false, Verbose: true, Colors: false})
	for _, ev := range events {
		s.Handle(ev)
	}
	want := strings.Join([]string{
		`▸ bash  echo \x1b]52;c;cm0gLXJmIH4=\x07 hi`,
		`▸ ba\x1b[8msh`,
		`⊘ denied by opaque: a\x1b[2Jb (r\x9bc)`,
		`rubichan: c1 \u009b2J`,
		"✗ exit 1 · 0ms",
		`  │ out\x1b[31mred\x0dover\u202eevil` + "\ttab",
		`  │ \xffbad`,
		`✗ no such file: \x1b[1mx · 0ms`,
		`  │ no such file: \x1b[1mx`,
		`✓ changed a\x1bb · 0ms`,
		`rubichan: tool bash: \x1b]0;t\x07`,
	}, "\n") + "\n"
	if b.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestActivityColors(t *testing.T) {
	t.Parallel()
	var plain, colored bytes.Buffer
	ev := agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "bash", Summary: "ls"}}
	NewActivity(&plain, ActivityOptions{Quiet: false, Verbose: false, Colors: false}).Handle(ev)
	NewActivity(&colored, ActivityOptions{Quiet: false, Verbose: false, Colors: true}).Handle(ev)
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("colors disabled but got escapes: %q", plain.String())
	}
	if !strings.Contains(colored.String(), "\x1b[") {
		t.Errorf("colors enabled but got none: %q", colored.String())
	}
}

func TestColorEnabled(t *testing.T) {
	t.Parallel()
	noColor := func(k string) (string, bool) { return "1", k == "NO_COLOR" }
	emptyNoColor := func(k string) (string, bool) { return "", k == "NO_COLOR" }
	none := func(string) (string, bool) { return "", false }
	dumb := func(k string) (string, bool) { return "dumb", k == "TERM" }
	tests := []struct {
		mode string
		tty  bool
		env  func(string) (string, bool)
		want bool
	}{
		{"auto", true, none, true},
		{"auto", false, none, false},
		{"auto", true, noColor, false},
		{"auto", true, emptyNoColor, true},
		{"always", false, noColor, true},
		{"auto", true, dumb, false}, // a terminal that cannot show them
		{"always", true, dumb, true},
		{"never", true, none, false},
	}
	for _, tc := range tests {
		if got := ColorEnabled(tc.mode, tc.tty, tc.env); got != tc.want {
			t.Errorf("ColorEnabled(%s, tty=%v) = %v, want %v", tc.mode, tc.tty, got, tc.want)
		}
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	durations := map[time.Duration]string{12 * time.Millisecond: "12ms", 400 * time.Millisecond: "0.4s", 1200 * time.Millisecond: "1.2s", 185 * time.Second: "3m05s"}
	for d, want := range durations {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	tokens := map[int64]string{812: "812", 12345: "12.3k", 1_234_567: "1.2M"}
	for n, want := range tokens {
		if got := FormatTokens(n); got != want {
			t.Errorf("FormatTokens(%d) = %q, want %q", n, got, want)
		}
	}
	if got := formatSummary(&agent.Summary{Turns: 1, InputTokens: 5, OutputTokens: 7, Elapsed: time.Second}); got != "1 turn · 5 in / 7 out tokens · 1.0s" {
		t.Errorf("summary = %q", got)
	}
	if got := agent.Clip("a\n  b\tc", 10); got != "a b c" {
		t.Errorf("clip = %q", got)
	}
	if got := agent.Clip("abcdefghijkl", 5); got != "abcd…" {
		t.Errorf("clip cut = %q", got)
	}
}

// failingWriter fails every write with err and counts the attempts.
type failingWriter struct {
	err    error
	writes int
}

func (f *failingWriter) Write([]byte) (int, error) {
	f.writes++
	return 0, f.err
}

func TestTextSinkReportsTheFirstWriteError(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		err      error
		wantPipe bool
		wantCode int
	}{
		"reader gone": {err: syscall.EPIPE, wantPipe: true, wantCode: exit.BrokenPipe},
		"disk full":   {err: syscall.ENOSPC, wantCode: exit.Failure},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := &failingWriter{err: &os.PathError{Op: "write", Path: "/dev/stdout", Err: tc.err}}
			s := NewText(w, TextOptions{Final: false})
			var reported []error
			s.onError = func(err error) { reported = append(reported, err) }
			for _, ev := range []agent.Event{{Kind: agent.EventTextDelta, Text: "a"}, {Kind: agent.EventTextDelta, Text: "b"}, {Kind: agent.EventMessageDone, Text: "ab"}} {
				s.Handle(ev)
			}
			if w.writes != 1 {
				t.Errorf("%d writes after the first failed one, want none", w.writes-1)
			}
			if len(reported) != 1 || !errors.Is(reported[0], tc.err) {
				t.Fatalf("reported %v, want one error wrapping %v", reported, tc.err)
			}
			if got := exit.IsBrokenPipe(reported[0]); got != tc.wantPipe {
				t.Errorf("brokenPipe = %v, want %v", got, tc.wantPipe)
			}
			if got := exit.Code(exit.Reported{Err: reported[0]}); got != tc.wantCode {
				t.Errorf("exit code %d, want %d", got, tc.wantCode)
			}
		})
	}
}
