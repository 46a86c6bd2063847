package run

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
)

// fixedClock returns a clock that starts at t and moves 1ms per call.
func fixedClock(t time.Time) func() time.Time {
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

var sessionStart = time.Date(2026, 11, 21, 13, 50, 1, 234e6, time.FixedZone("CET", 3600))

// newTestSession opens a session in a fresh directory and returns it with
// its directory and the warnings and notes it writes.
func newTestSession(t *testing.T, secrets []string, prompt string) (s *sessionLog, dir string, warn, notes *bytes.Buffer) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "a", "sessions")
	warn, notes = &bytes.Buffer{}, &bytes.Buffer{}
	s = openSession(sessionOptions{Dir: dir, Secrets: secrets, Warn: warn, Notes: notes, Now: fixedClock(sessionStart)},
		sessionHeader{Start: sessionStart, Workspace: "/w", Provider: "anthropic", Model: "m", Policy: "built-in default policy", Prompt: prompt})
	if s == nil {
		t.Fatalf("openSession failed: %s", warn)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir, warn, notes
}

func readSession(t *testing.T, s *sessionLog) []string {
	t.Helper()
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines, err := sessionLines(data)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestSessionLines(t *testing.T) {
	t.Parallel()
	exit0, exit1 := 0, 1
	tool := &ToolCallInfo{ID: "c1", Name: "bash", Summary: "go test", Input: json.RawMessage(`{"command": "go test"}`)}
	tests := map[string]struct {
		ev   Event
		want string // the line, without its time; "" when the event is not logged
	}{
		"delta skipped": {Event{Kind: EventTextDelta, Turn: 1, Text: "Hel"}, ""},
		"notice":        {Event{Kind: EventNotice, Text: "note"}, `{"type":"notice","text":"note"}`},
		"turn":          {Event{Kind: EventTurnStart, Turn: 2}, `{"type":"turn","turn":2}`},
		"message": {Event{Kind: EventMessageDone, Turn: 1, Text: "Hello", Usage: &llm.Usage{InputTokens: 10, OutputTokens: 3, CacheReadTokens: 5, CacheCreationTokens: 7}},
			`{"type":"message","turn":1,"text":"Hello","usage":{"input_tokens":10,"output_tokens":3,"cache_read_tokens":5,"cache_write_tokens":7}}`},
		"message without text": {Event{Kind: EventMessageDone, Turn: 1, Usage: &llm.Usage{}},
			`{"type":"message","turn":1,"text":"","usage":{"input_tokens":0,"output_tokens":0}}`},
		"stream cut": {Event{Kind: EventStreamCut, Turn: 1}, `{"type":"stream_cut","turn":1}`},
		"retry": {Event{Kind: EventRetry, Turn: 1, Retry: &RetryInfo{Attempt: 1, Wait: 1500 * time.Millisecond, Reason: "429 rate limit"}},
			`{"type":"retry","turn":1,"reason":"429 rate limit","attempt":1,"wait_ms":1500}`},
		"tool call": {Event{Kind: EventToolCall, Turn: 1, Tool: tool},
			`{"type":"tool_call","turn":1,"id":"c1","name":"bash","input":{"command":"go test"}}`},
		"malformed call input": {Event{Kind: EventToolCall, Turn: 1, Tool: &ToolCallInfo{ID: "c2", Name: "bash", Input: json.RawMessage(`{"command": "go te`)}},
			`{"type":"tool_call","turn":1,"id":"c2","name":"bash","input":"{\"command\": \"go te"}`},
		"allowed": {Event{Kind: EventToolAllowed, Turn: 1, Tool: tool, Allow: &AllowInfo{Rule: "allow shell:go test", Fact: "go test"}},
			`{"type":"decision","turn":1,"id":"c1","name":"bash","decision":"allow","rule":"allow shell:go test","fact":"go test"}`},
		"denied": {Event{Kind: EventToolDenied, Turn: 1, Tool: tool, Denial: &DenialInfo{Rule: "no-net", Fact: "curl x", Reason: "no network"}},
			`{"type":"decision","turn":1,"id":"c1","name":"bash","decision":"deny","rule":"no-net","fact":"curl x","reason":"no network"}`},
		"bash result": {Event{Kind: EventToolResult, Turn: 1, Tool: tool, Result: &ToolResultInfo{ExitCode: &exit1, Duration: 1200 * time.Millisecond, Content: "FAIL", IsError: false}},
			`{"type":"tool_result","turn":1,"id":"c1","name":"bash","is_error":false,"exit_code":1,"duration_ms":1200,"content":"FAIL"}`},
		"edit result": {Event{Kind: EventToolResult, Turn: 3, Tool: &ToolCallInfo{ID: "c3", Name: "edit"}, Result: &ToolResultInfo{Content: "Edited a.go", Diff: "-a\n+b\n", Changed: []string{"a.go"}}},
			`{"type":"tool_result","turn":3,"id":"c3","name":"edit","is_error":false,"duration_ms":0,"content":"Edited a.go","diff":"-a\n+b\n","changed":["a.go"]}`},
		"limit": {Event{Kind: EventLimit, Text: "reached --max-turns 2"}, `{"type":"limit","text":"reached --max-turns 2"}`},
		"history, user": {Event{Kind: EventHistory, Turn: 1, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("c1", "ok\tfine", false), llm.TextBlock("go on")}}},
			`{"type":"user","turn":1,"blocks":[{"type":"tool_result","tool_use_id":"c1","content":"ok\tfine"},{"type":"text","text":"go on"}]}`},
		"history, assistant": {Event{Kind: EventHistory, Turn: 2, Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ThinkingBlock("hm", "sig"), llm.ToolUseBlock("c2", "bash", json.RawMessage(`{"command":"ls"}`))}}},
			`{"type":"assistant","turn":2,"model":"m","blocks":[{"type":"thinking","text":"hm","signature":"sig"},{"type":"tool_use","id":"c2","name":"bash","input":{"command":"ls"}}]}`},
		"pending": {Event{Kind: EventToolDenied, Turn: 1, Tool: tool, Denial: &DenialInfo{Rule: "tools.shell", Fact: "npm publish", Reason: "deferred", Pending: true}},
			`{"type":"decision","turn":1,"id":"c1","name":"bash","decision":"pending","rule":"tools.shell","fact":"npm publish","reason":"deferred"}`},
		"end, deferred": {Event{Kind: EventTurnDone, Summary: &Summary{Turns: 1, ExitCode: 3, Pending: []agent.Pending{{ID: "c1", Tool: "bash", Fact: "npm publish", Rule: "tools.shell"}}}},
			`{"type":"end","exit_code":3,"status":"deferred","turns":1,"tool_calls":0,"input_tokens":0,"output_tokens":0,"elapsed_ms":0,"pending":[{"id":"c1","tool":"bash","fact":"npm publish","rule":"tools.shell"}]}`},
		"error": {Event{Kind: EventError, Err: errors.New("interrupted by terminated")}, `{"type":"error","error":"interrupted by terminated"}`},
		"end": {Event{Kind: EventTurnDone, Summary: &Summary{Turns: 2, ToolCalls: 1, InputTokens: 30, OutputTokens: 9, Elapsed: 2 * time.Second, ExitCode: exit0, CostUSD: 0.25, CostKnown: true}},
			`{"type":"end","exit_code":0,"status":"done","turns":2,"tool_calls":1,"input_tokens":30,"output_tokens":9,"elapsed_ms":2000,"cost_usd":0.25}`},
		"end, unknown price": {Event{Kind: EventTurnDone, Summary: &Summary{Turns: 1, ExitCode: 143}},
			`{"type":"end","exit_code":143,"status":"interrupted","turns":1,"tool_calls":0,"input_tokens":0,"output_tokens":0,"elapsed_ms":0}`},
	}
	timeRE := regexp.MustCompile(`,"time":"[^"]*"`)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _, warn, _ := newTestSession(t, nil, "task")
			s.handle(tc.ev)
			lines := readSession(t, s)
			if tc.want == "" {
				if len(lines) != 1 {
					t.Fatalf("logged %q", lines[1:])
				}
				return
			}
			if len(lines) != 2 {
				t.Fatalf("%d lines, want header and one: %q", len(lines), lines)
			}
			if !strings.Contains(lines[1], `,"time":"2026-11-21T12:50:01.235Z"`) {
				t.Errorf("line time is not the clock's, in UTC: %s", lines[1])
			}
			if got := timeRE.ReplaceAllString(lines[1], ""); got != tc.want {
				t.Errorf("line:\n got %s\nwant %s", got, tc.want)
			}
			if warn.Len() > 0 {
				t.Errorf("warnings: %s", warn)
			}
		})
	}
}

func TestSessionHeaderAndFile(t *testing.T) {
	t.Parallel()
	s, dir, _, notes := newTestSession(t, nil, "fix the <bug> & go")
	lines := readSession(t, s)
	want := `{"type":"session","time":"2026-11-21T12:50:01.234Z","format":2,"id":"` + session.IDOf(s.Path()) + `","run":1,"pid":` + strconv.Itoa(os.Getpid()) + `,"version":"` + version + `","go":"` + runtime.Version() +
		`","workspace":"/w","provider":"anthropic","model":"m","policy":"built-in default policy","prompt_bytes":18,"prompt":"fix the <bug> & go"}`
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("header:\n got %q\nwant %s", lines, want)
	}
	if name := filepath.Base(s.Path()); !strings.HasPrefix(name, "20261121T125001.234Z-") || !sessionNameRE.MatchString(name) {
		t.Errorf("file name %q: want the UTC start time and a random suffix", name)
	}
	if _, err := checkSessionDir(dir, true, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "want end") {
		t.Errorf("a log without its end line passed the check: %v", err)
	}
	if notes.Len() > 0 {
		t.Errorf("the path was shown before the end: %s", notes)
	}
	s.handle(Event{Kind: EventTurnDone, Summary: &Summary{ExitCode: 0}})
	s.handle(Event{Kind: EventNotice, Text: "after the end"})
	if _, err := checkSessionDir(dir, true, func(string) string { return "" }); err != nil {
		t.Error(err)
	}
	if want := "session saved to " + s.Path() + "\n"; notes.String() != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestSessionNamesDiffer(t *testing.T) {
	t.Parallel()
	st := session.Store{Dir: t.TempDir()}
	seen := map[string]bool{}
	for range 20 {
		w, err := st.CreateNew(sessionStart, session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if seen[w.Path()] {
			t.Fatalf("name %s used twice", w.Path())
		}
		seen[w.Path()] = true
	}
}

func TestSessionOpenFailure(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		dir  string
		want string
	}{
		"dir is a file":        {filepath.Join(file, "sessions"), "rubichan: warning: no session log: session: mkdir "},
		"no dir at all":        {"", "rubichan: warning: no session log: neither $XDG_STATE_HOME nor $HOME is set"},
		"dir is a file itself": {file, "rubichan: warning: no session log: session: mkdir "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var warn bytes.Buffer
			s := openSession(sessionOptions{Dir: tc.dir, Warn: &warn}, sessionHeader{Start: sessionStart})
			if s != nil {
				t.Fatalf("opened %s", s.Path())
			}
			if !strings.HasPrefix(warn.String(), tc.want) {
				t.Errorf("warning %q, want prefix %q", warn.String(), tc.want)
			}
			// A nil log records nothing and does not panic.
			s.handle(Event{Kind: EventTurnDone, Summary: &Summary{}})
			if err := s.Close(); err != nil || s.Path() != "" {
				t.Errorf("nil log: Close %v, Path %q", err, s.Path())
			}
		})
	}
}

func TestSessionWriteFailure(t *testing.T) {
	t.Parallel()
	s, _, warn, notes := newTestSession(t, nil, "task")
	s.handle(Event{Kind: EventTurnStart, Turn: 1})
	s.w.File().Close() // the file goes away under the log
	s.handle(Event{Kind: EventNotice, Text: "lost"})
	s.handle(Event{Kind: EventNotice, Text: "also lost"})
	s.handle(Event{Kind: EventTurnDone, Summary: &Summary{}})
	if got := strings.Count(warn.String(), "warning"); got != 1 {
		t.Errorf("%d warnings, want 1: %s", got, warn)
	}
	if !strings.Contains(warn.String(), "session log "+s.Path()+" is incomplete") {
		t.Errorf("warning does not name the file: %s", warn)
	}
	if notes.Len() > 0 {
		t.Errorf("an incomplete log was announced as saved: %s", notes)
	}
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if lines, err := sessionLines(data); err != nil || len(lines) != 2 {
		t.Errorf("lines before the failure: %q, %v", lines, err)
	}
}

const testSecret = "sk-test-secret-0123456789"

func TestSessionRedaction(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		ev      Event
		prompt  string
		want    string // a substring of the line
		wantAll bool   // the whole line was replaced
	}{
		"prompt": {prompt: "use " + testSecret + " please", want: `"prompt":"use [REDACTED] please"`},
		"tool input value": {ev: Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "bash", Input: json.RawMessage(`{"command":"curl -H 'x-api-key: ` + testSecret + `' x","env":[{"k":"` + testSecret + `"}]}`)}},
			want: `"input":{"command":"curl -H 'x-api-key: [REDACTED]' x","env":[{"k":"[REDACTED]"}]}`},
		"tool input key":       {ev: Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "x", Input: json.RawMessage(`{"` + testSecret + `":1}`)}}, want: `"input":{"[REDACTED]":1}`},
		"tool input escaped":   {ev: Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "x", Input: json.RawMessage(`{"a":"\u0073k-test-secret-0123456789"}`)}}, want: `"input":{"a":"[REDACTED]"}`},
		"malformed tool input": {ev: Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "x", Input: json.RawMessage(`{"a":"` + testSecret)}}, want: `"input":"{\"a\":\"[REDACTED]"`},
		"result content and diff": {ev: Event{Kind: EventToolResult, Tool: &ToolCallInfo{Name: "bash"}, Result: &ToolResultInfo{Content: "KEY=" + testSecret, Diff: "+" + testSecret, Changed: []string{testSecret}}},
			want: `"content":"KEY=[REDACTED]","diff":"+[REDACTED]","changed":["[REDACTED]"]`},
		"message":             {ev: Event{Kind: EventMessageDone, Text: "the key is " + testSecret}, want: `"text":"the key is [REDACTED]"`},
		"error":               {ev: Event{Kind: EventError, Err: errors.New("401 for " + testSecret)}, want: `"error":"401 for [REDACTED]"`},
		"decision":            {ev: Event{Kind: EventToolDenied, Tool: &ToolCallInfo{Name: "bash"}, Denial: &DenialInfo{Rule: "r", Fact: "echo " + testSecret, Reason: testSecret}}, want: `"fact":"echo [REDACTED]","reason":"[REDACTED]"`},
		"longer secret first": {ev: Event{Kind: EventNotice, Text: testSecret + "-longer-part"}, want: `"text":"[REDACTED]"`},
		// The encoded text holds the secret across an escape: \n then the
		// rest; no value holds it, so the whole line goes.
		"across an escape":  {ev: Event{Kind: EventNotice, Text: "a\nabcdefghij"}, wantAll: true},
		"short values kept": {ev: Event{Kind: EventNotice, Text: "x ollama"}, want: `"text":"x ollama"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _, _, _ := newTestSession(t, []string{testSecret, testSecret + "-longer-part", "nabcdefghij", "x", "ollama", ""}, tc.prompt)
			if tc.ev.Kind != 0 {
				s.handle(tc.ev)
			}
			lines := readSession(t, s)
			line := lines[len(lines)-1]
			for _, sec := range []string{testSecret, "nabcdefghij", "sk-test-secret"} {
				if strings.Contains(line, sec) {
					t.Errorf("line holds %q: %s", sec, line)
				}
			}
			if tc.wantAll {
				if !strings.Contains(line, `"redacted":"the line held a secret`) || strings.Contains(line, "abcdefghij") {
					t.Errorf("line not replaced: %s", line)
				}
				return
			}
			if !strings.Contains(line, tc.want) {
				t.Errorf("line\n %s\nlacks %s", line, tc.want)
			}
		})
	}
}

func TestSessionContentCap(t *testing.T) {
	t.Parallel()
	s, _, _, _ := newTestSession(t, nil, "task")
	big := strings.Repeat("é", session.ContentMax) // 2 bytes each
	diff := strings.Repeat("+x\n", session.DiffMax)
	s.handle(Event{Kind: EventToolResult, Tool: &ToolCallInfo{Name: "read"}, Result: &ToolResultInfo{Content: big, Diff: diff}})
	lines := readSession(t, s)
	var l session.Line
	if err := json.Unmarshal([]byte(lines[1]), &l); err != nil {
		t.Fatal(err)
	}
	if l.Output == nil || len(*l.Output) != session.ContentMax || !strings.HasPrefix(big, *l.Output) {
		t.Errorf("content of %d bytes kept, want the first %d", len(*l.Output), session.ContentMax)
	}
	if !l.ContentTruncated || l.ContentBytes != len(big) {
		t.Errorf("content_truncated %v, content_bytes %d; want true, %d", l.ContentTruncated, l.ContentBytes, len(big))
	}
	if len(l.Diff) != session.DiffMax || !l.DiffTruncated {
		t.Errorf("diff of %d bytes (truncated %v), want %d", len(l.Diff), l.DiffTruncated, session.DiffMax)
	}
}

// FuzzSessionRedaction: whatever the secret and the text, every line is
// one valid JSON object and never holds the secret.
func FuzzSessionRedaction(f *testing.F) {
	f.Add("sk-ant-0123456789", "key sk-ant-0123456789 here", `{"a":"sk-ant-0123456789"}`)
	f.Add("nabcdefghij", "a\nabcdefghij", `{"b":"\nabcdefghij"}`)
	f.Add(`"quoted\secret"`, `x"quoted\secret"y`, `{`)
	f.Add("\u2028linesep-secret", "a\u2028linesep-secret", `["\u2028linesep-secret"]`)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, secret, text, input string) {
		s := openSession(sessionOptions{Dir: dir, Secrets: []string{secret}, Now: fixedClock(sessionStart)}, sessionHeader{Start: sessionStart, Prompt: text})
		if s == nil {
			t.Fatal("openSession failed")
		}
		defer os.Remove(s.Path())
		defer s.Close()
		s.handle(Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: text, Input: json.RawMessage(input)}})
		s.handle(Event{Kind: EventToolResult, Tool: &ToolCallInfo{Name: "bash"}, Result: &ToolResultInfo{Content: text, Diff: text}})
		s.handle(Event{Kind: EventTurnDone, Summary: &Summary{}})
		data, err := os.ReadFile(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		lines, err := sessionLines(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) != 4 {
			t.Fatalf("%d lines, want 4", len(lines))
		}
		if len(secret) >= secretMinLen && bytes.Contains(data, []byte(secret)) {
			t.Fatalf("the log holds the secret %q:\n%s", secret, data)
		}
	})
}

func BenchmarkSessionToolResult(b *testing.B) {
	s := openSession(sessionOptions{Dir: b.TempDir(), Secrets: []string{testSecret, "sk-other-9876543210"}}, sessionHeader{Start: sessionStart})
	if s == nil {
		b.Fatal("openSession failed")
	}
	defer s.Close()
	var content strings.Builder
	w := bufio.NewWriter(&content)
	for i := range 400 {
		fmt.Fprintf(w, "%05d ok   github.com/rubichan/rubichan/run  0.123s\n", i)
	}
	w.Flush()
	exit := 0
	ev := Event{Kind: EventToolResult, Turn: 1, Tool: &ToolCallInfo{ID: "c", Name: "bash"},
		Result: &ToolResultInfo{ExitCode: &exit, Content: content.String()}}
	b.SetBytes(int64(content.Len()))
	b.ResetTimer()
	for b.Loop() {
		s.handle(ev)
	}
}

func TestExecOpenSession(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	pol, err := loadPolicy(policySource{Dir: ws, Headless: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	vars := map[string]string{
		"XDG_STATE_HOME":     state,
		"HOME":               "/nonexistent-home",
		"OPENAI_API_KEY":     "sk-openai-other-provider-key",
		"OPENROUTER_API_KEY": "short",
	}
	env := environment{lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	cfg := execConfig{Provider: "gw", Model: "m", APIKey: "gateway-key-0123456789", Quiet: true}
	cfg.Resolved.Headers = map[string]string{"Authorization": "Bearer header-token-abcdef", "X-Team": "ci-team-name"}
	prompt := "a gateway-key-0123456789 b sk-openai-other-provider-key c Bearer header-token-abcdef d ci-team-name e short f header-token-abcdef"

	var stderr bytes.Buffer
	s := testExecSession(t, cfg, env, ws, pol, prompt, &stderr)
	if s == nil {
		t.Fatalf("no session: %s", stderr.String())
	}
	defer s.Close()
	if want := filepath.Join(state, "rubichan", "sessions"); filepath.Dir(s.Path()) != want {
		t.Errorf("session in %s, want %s", filepath.Dir(s.Path()), want)
	}
	s.handle(Event{Kind: EventTurnDone, Summary: &Summary{}})
	if stderr.Len() > 0 {
		t.Errorf("--quiet, yet stderr got %q", stderr.String())
	}
	var h session.Line
	if err := json.Unmarshal([]byte(readSession(t, s)[0]), &h); err != nil {
		t.Fatal(err)
	}
	if want := "a [REDACTED] b [REDACTED] c [REDACTED] d ci-team-name e short f [REDACTED]"; h.Prompt == nil || *h.Prompt != want {
		t.Errorf("prompt %q, want %q", deref(h.Prompt), want)
	}
	if h.Workspace != ws || h.Provider != "gw" || h.Model != "m" || h.Policy != "built-in default policy" {
		t.Errorf("header %+v", h)
	}

	t.Run("no-session", func(t *testing.T) {
		c := cfg
		c.NoSession = true
		if s := testExecSession(t, c, env, ws, pol, prompt, io.Discard); s != nil {
			t.Errorf("--no-session opened %s", s.Path())
		}
	})
	t.Run("session-dir wins and is made absolute", func(t *testing.T) {
		c := cfg
		dir := t.TempDir()
		c.SessionDir = filepath.Join(dir, "a", "..", "sess")
		s := testExecSession(t, c, env, ws, pol, prompt, io.Discard)
		if s == nil {
			t.Fatal("no session")
		}
		defer s.Close()
		if got := filepath.Dir(s.Path()); got != filepath.Join(dir, "sess") {
			t.Errorf("session in %s, want %s", got, filepath.Join(dir, "sess"))
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// testExecSession opens the session of an exec run as runExec does.
func testExecSession(t *testing.T, cfg execConfig, env environment, ws string, pol *policy.Policy, prompt string, stderr io.Writer) *sessionLog {
	t.Helper()
	plan, err := planSession(cfg.sessionFlags, cfg.sessionDir(env), cfg.secrets(env), ws, stderr)
	if err != nil {
		t.Fatal(err)
	}
	notes := stderr
	if cfg.Quiet {
		notes = io.Discard
	}
	return plan.open(cfg.sessionFlags, sessionOptions{Secrets: cfg.secrets(env), Warn: stderr, Notes: notes}, sessionHeader{
		Start: sessionStart, Workspace: ws, Provider: cfg.Provider, Model: cfg.Model, Policy: pol.Name(), PolicyFile: pol.File(), Prompt: prompt,
	})
}

// BenchmarkSessionRoundTrip is what the session log adds to one tool round
// trip: the events of a model answer with one bash call and its 20 KB
// result, through the log ("session") and through a nil log as with
// --no-session. Target: the difference ≤ 0.2 ms.
func BenchmarkSessionRoundTrip(b *testing.B) {
	var content strings.Builder
	for i := range 400 {
		fmt.Fprintf(&content, "%05d ok   github.com/rubichan/rubichan/run  0.123s\n", i)
	}
	exit := 0
	input := json.RawMessage(`{"command":"go test ./..."}`)
	tool := &ToolCallInfo{ID: "call_1_0", Name: "bash", Summary: "go test ./...", Input: input}
	assistant := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.ThinkingBlock("The tests again.", "sig"), llm.TextBlock("Running the tests."), llm.ToolUseBlock("call_1_0", "bash", input)}}
	results := llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("call_1_0", content.String(), false)}}
	events := []Event{
		{Kind: EventTurnStart, Turn: 1},
		{Kind: EventTextDelta, Turn: 1, Text: "Running the tests."},
		{Kind: EventHistory, Turn: 1, Message: &assistant},
		{Kind: EventMessageDone, Turn: 1, Text: "Running the tests.", Usage: &llm.Usage{InputTokens: 1000, OutputTokens: 40}},
		{Kind: EventToolCall, Turn: 1, Tool: tool},
		{Kind: EventToolAllowed, Turn: 1, Tool: tool, Allow: &AllowInfo{Rule: "--allow shell:go test *", Fact: "go test ./..."}},
		{Kind: EventToolResult, Turn: 1, Tool: tool, Result: &ToolResultInfo{ExitCode: &exit, Duration: time.Second, Content: content.String()}},
		{Kind: EventHistory, Turn: 1, Message: &results},
	}
	for _, name := range []string{"session", "no-session"} {
		b.Run(name, func(b *testing.B) {
			var s *sessionLog
			if name == "session" {
				s = openSession(sessionOptions{Dir: b.TempDir(), Secrets: []string{testSecret, "sk-other-9876543210"}}, sessionHeader{Start: sessionStart})
				if s == nil {
					b.Fatal("openSession failed")
				}
				defer s.Close()
			}
			cpu := cpuTime()
			for b.Loop() {
				for _, ev := range events {
					s.handle(ev)
				}
			}
			// The wall time on a shared machine includes waiting for a
			// core; the CPU time says what the log costs.
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// TestSessionFieldCaps checks that no line grows with what the model sends:
// a 20 MB tool call, a huge message, a huge denied command are cut to their
// caps, the cut marked with the full size, and a secret across the cut
// leaves no trace.
func TestSessionFieldCaps(t *testing.T) {
	t.Parallel()
	const secret = "sk-ant-session-cap-0123456789"
	// The secret straddles the input cap.
	input := `{"path":"f","content":"` + strings.Repeat("a", session.InputMax-30) + secret + strings.Repeat("b", 20<<20) + `"}`
	text := strings.Repeat("t", 2*session.TextMax)
	fact := strings.Repeat("c", 2*session.FieldMax)
	tests := map[string]struct {
		ev    Event
		field string
		full  int
		max   int
	}{
		"tool input": {Event{Kind: EventToolCall, Tool: &ToolCallInfo{Name: "write", Input: json.RawMessage(input)}}, "input", len(input), session.InputMax},
		"message":    {Event{Kind: EventMessageDone, Text: text}, "text", len(text), session.TextMax},
		"fact":       {Event{Kind: EventToolDenied, Tool: &ToolCallInfo{Name: "bash"}, Denial: &DenialInfo{Rule: "r", Fact: fact}}, "fact", len(fact), session.FieldMax},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _, _, _ := newTestSession(t, []string{secret}, "task")
			s.handle(tc.ev)
			lines := readSession(t, s)
			line := lines[1]
			if len(line) > tc.max+4<<10 {
				t.Errorf("line of %d bytes, cap %d", len(line), tc.max)
			}
			if strings.Contains(line, secret[:12]) {
				t.Errorf("the line keeps the start of the secret")
			}
			var l session.Line
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatal(err)
			}
			if l.Truncated[tc.field] != tc.full {
				t.Errorf("truncated = %v, want %s: %d", l.Truncated, tc.field, tc.full)
			}
		})
	}
}
