package run

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTextSink(t *testing.T) {
	t.Parallel()
	delta := func(s string) Event { return Event{Kind: EventTextDelta, Text: s} }
	done := func(s string) Event { return Event{Kind: EventMessageDone, Text: s} }
	tool := Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "bash", Summary: "ls"}}
	end := Event{Kind: EventTurnDone, Summary: &Summary{}}
	tests := map[string]struct {
		final  bool
		events []Event
		want   string
	}{
		"one message gets a final newline": {events: []Event{delta("Hel"), delta("lo"), done("Hello"), end}, want: "Hello\n"},
		"newline kept":                     {events: []Event{delta("Hi\n"), done("Hi\n"), end}, want: "Hi\n"},
		"newline between messages":         {events: []Event{delta("Looking."), done("Looking."), tool, delta("Done."), done("Done."), end}, want: "Looking.\nDone.\n"},
		"message without text":             {events: []Event{done(""), tool, delta("ok"), done("ok"), end}, want: "ok\n"},
		"stream cut then full answer":      {events: []Event{delta("The ans"), {Kind: EventStreamCut}, delta("The answer"), done("The answer"), end}, want: "The ans\nThe answer\n"},
		"only text reaches stdout":         {events: []Event{{Kind: EventNotice, Text: "note"}, tool, {Kind: EventRetry, Retry: &RetryInfo{}}, delta("x"), done("x"), {Kind: EventLimit, Text: "max"}, end}, want: "x\n"},
		"final: last message only":         {final: true, events: []Event{delta("Looking."), done("Looking."), tool, delta("Done"), done("Done"), end}, want: "Done\n"},
		"final: cut stream":                {final: true, events: []Event{delta("par"), {Kind: EventStreamCut}, delta("full"), done("full"), end}, want: "full\n"},
		"final: nothing said":              {final: true, events: []Event{done(""), end}, want: ""},
		"nothing said":                     {events: []Event{done(""), end}, want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			s := newTextSink(&b, tc.final)
			for _, ev := range tc.events {
				s.handle(ev)
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
			s := newTextSink(&b, false)
			s.terminal = tc.terminal
			for _, ev := range []Event{{Kind: EventTextDelta, Text: text}, {Kind: EventMessageDone, Text: text}, {Kind: EventTurnDone, Summary: &Summary{}}} {
				s.handle(ev)
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
	s := newTextSink(&rec, false)
	s.handle(Event{Kind: EventTextDelta, Text: "a"})
	if len(rec.writes) != 1 || rec.writes[0] != "a" {
		t.Fatalf("first delta not written at once: %q", rec.writes)
	}
	s.handle(Event{Kind: EventTextDelta, Text: "b"})
	if len(rec.writes) != 2 {
		t.Fatalf("second delta not written at once: %q", rec.writes)
	}
}

func TestActivitySink(t *testing.T) {
	t.Parallel()
	zero, one := 0, 1
	events := []Event{
		{Kind: EventNotice, Text: "waiting for standard input"},
		{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "bash", Summary: "go test ./..."}},
		{Kind: EventToolResult, Result: &ToolResultInfo{ExitCode: &zero, Duration: 1200 * time.Millisecond, Content: "ok pkg\n"}},
		{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "bash", Summary: "go vet\n./..."}},
		{Kind: EventToolResult, Result: &ToolResultInfo{ExitCode: &one, IsError: true, Duration: 400 * time.Millisecond, Content: "vet: bad"}},
		{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "edit", Summary: "main.go"}},
		{Kind: EventToolResult, Result: &ToolResultInfo{Changed: []string{"main.go"}, Duration: 3 * time.Millisecond}},
		{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "read", Summary: "nope.go"}},
		{Kind: EventToolResult, Result: &ToolResultInfo{IsError: true, Content: "file not found: nope.go\nhint", Duration: time.Millisecond}},
		{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "bash", Summary: "curl x"}},
		{Kind: EventToolDenied, Denial: &DenialInfo{Rule: "ci-checks", Fact: "curl x", Reason: "no network"}},
		{Kind: EventRetry, Retry: &RetryInfo{Attempt: 1, Wait: 4 * time.Second, Reason: "429 rate limit"}},
		{Kind: EventStreamCut},
		{Kind: EventTextDelta, Text: "answer"},
		{Kind: EventLimit, Text: "reached --max-turns 3"},
		{Kind: EventError, Err: errors.New("anthropic: 401 authentication_error")},
		{Kind: EventTurnDone, Summary: &Summary{Turns: 4, InputTokens: 12345, OutputTokens: 1100, Elapsed: 18200 * time.Millisecond}},
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
		"⚠ the partial answer above was interrupted; asking again",
		"rubichan: stopped: reached --max-turns 3",
		"rubichan: anthropic: 401 authentication_error",
		"4 turns · 12.3k in / 1.1k out tokens · 18.2s",
	}, "\n") + "\n"
	quiet := strings.Join([]string{
		"⚠ the partial answer above was interrupted; asking again",
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
			s := newActivitySink(&b, tc.quiet, tc.verbose, false)
			for _, ev := range events {
				s.handle(ev)
			}
			if b.String() != tc.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

// TestActivityEscapesControls checks that text from the model, the tools
// and the workspace reaches stderr with its control characters shown, not
// sent: an escape sequence in a command or in a file the tool printed
// could retitle the terminal, write the clipboard (OSC 52) or hide lines.
func TestActivityEscapesControls(t *testing.T) {
	t.Parallel()
	one := 1
	events := []Event{
		{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "bash", Summary: "echo \x1b]52;c;cm0gLXJmIH4=\x07 hi"}},
		{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "ba\x1b[8msh"}},
		{Kind: EventToolDenied, Denial: &DenialInfo{Rule: "opaque", Fact: "a\x1b[2Jb", Reason: "r\x9bc"}},
		{Kind: EventNotice, Text: "c1 \u009b2J"},
		{Kind: EventToolResult, Result: &ToolResultInfo{ExitCode: &one, IsError: true, Content: "out\x1b[31mred\rover\u202eevil\ttab\n\xffbad"}},
		{Kind: EventToolResult, Result: &ToolResultInfo{IsError: true, Content: "no such file: \x1b[1mx"}},
		{Kind: EventToolResult, Result: &ToolResultInfo{Changed: []string{"a\x1bb"}}},
		{Kind: EventError, Err: errors.New("tool bash: \x1b]0;t\x07")},
	}
	var b bytes.Buffer
	s := newActivitySink(&b, false, true, false)
	for _, ev := range events {
		s.handle(ev)
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
	ev := Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "bash", Summary: "ls"}}
	newActivitySink(&plain, false, false, false).handle(ev)
	newActivitySink(&colored, false, false, true).handle(ev)
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
		if got := colorEnabled(tc.mode, tc.tty, tc.env); got != tc.want {
			t.Errorf("colorEnabled(%s, tty=%v) = %v, want %v", tc.mode, tc.tty, got, tc.want)
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
		if got := formatTokens(n); got != want {
			t.Errorf("formatTokens(%d) = %q, want %q", n, got, want)
		}
	}
	if got := formatSummary(&Summary{Turns: 1, InputTokens: 5, OutputTokens: 7, Elapsed: time.Second}); got != "1 turn · 5 in / 7 out tokens · 1.0s" {
		t.Errorf("summary = %q", got)
	}
	if got := clip("a\n  b\tc", 10); got != "a b c" {
		t.Errorf("clip = %q", got)
	}
	if got := clip("abcdefghijkl", 5); got != "abcd…" {
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
		"reader gone": {err: syscall.EPIPE, wantPipe: true, wantCode: exitBrokenPipe},
		"disk full":   {err: syscall.ENOSPC, wantCode: exitFailure},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := &failingWriter{err: &os.PathError{Op: "write", Path: "/dev/stdout", Err: tc.err}}
			s := newTextSink(w, false)
			var reported []error
			s.onError = func(err error) { reported = append(reported, err) }
			for _, ev := range []Event{{Kind: EventTextDelta, Text: "a"}, {Kind: EventTextDelta, Text: "b"}, {Kind: EventMessageDone, Text: "ab"}} {
				s.handle(ev)
			}
			if w.writes != 1 {
				t.Errorf("%d writes after the first failed one, want none", w.writes-1)
			}
			if len(reported) != 1 || !errors.Is(reported[0], tc.err) {
				t.Fatalf("reported %v, want one error wrapping %v", reported, tc.err)
			}
			if got := brokenPipe(reported[0]); got != tc.wantPipe {
				t.Errorf("brokenPipe = %v, want %v", got, tc.wantPipe)
			}
			if got := exitCode(reportedError{Err: reported[0]}); got != tc.wantCode {
				t.Errorf("exit code %d, want %d", got, tc.wantCode)
			}
		})
	}
}
