package sink_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/sink/sinktest"
)

func TestSessionLines(t *testing.T) {
	t.Parallel()
	exit0, exit1 := 0, 1
	tool := &agent.ToolCallInfo{ID: "c1", Name: "bash", Summary: "go test", Input: json.RawMessage(`{"command": "go test"}`)}
	tests := map[string]struct {
		ev   agent.Event
		want string // the line, without its time; "" when the event is not logged
	}{
		"delta skipped": {agent.Event{Kind: agent.EventTextDelta, Turn: 1, Text: "Hel"}, ""},
		"notice":        {agent.Event{Kind: agent.EventNotice, Text: "note"}, `{"type":"notice","text":"note"}`},
		"turn":          {agent.Event{Kind: agent.EventTurnStart, Turn: 2}, `{"type":"turn","turn":2}`},
		"message": {agent.Event{Kind: agent.EventMessageDone, Turn: 1, Text: "Hello", Usage: &llm.Usage{InputTokens: 10, OutputTokens: 3, CacheReadTokens: 5, CacheCreationTokens: 7}},
			`{"type":"message","turn":1,"text":"Hello","usage":{"input_tokens":10,"output_tokens":3,"cache_read_tokens":5,"cache_write_tokens":7}}`},
		"message without text": {agent.Event{Kind: agent.EventMessageDone, Turn: 1, Usage: &llm.Usage{}},
			`{"type":"message","turn":1,"text":"","usage":{"input_tokens":0,"output_tokens":0}}`},
		"stream cut": {agent.Event{Kind: agent.EventStreamCut, Turn: 1}, `{"type":"stream_cut","turn":1}`},
		"retry": {agent.Event{Kind: agent.EventRetry, Turn: 1, Retry: &agent.RetryInfo{Attempt: 1, Wait: 1500 * time.Millisecond, Reason: "429 rate limit"}},
			`{"type":"retry","turn":1,"reason":"429 rate limit","attempt":1,"wait_ms":1500}`},
		"tool call": {agent.Event{Kind: agent.EventToolCall, Turn: 1, Tool: tool},
			`{"type":"tool_call","turn":1,"id":"c1","name":"bash","input":{"command":"go test"}}`},
		"malformed call input": {agent.Event{Kind: agent.EventToolCall, Turn: 1, Tool: &agent.ToolCallInfo{ID: "c2", Name: "bash", Input: json.RawMessage(`{"command": "go te`)}},
			`{"type":"tool_call","turn":1,"id":"c2","name":"bash","input":"{\"command\": \"go te"}`},
		"allowed": {agent.Event{Kind: agent.EventToolAllowed, Turn: 1, Tool: tool, Allow: &agent.AllowInfo{Rule: "allow shell:go test", Fact: "go test"}},
			`{"type":"decision","turn":1,"id":"c1","name":"bash","decision":"allow","rule":"allow shell:go test","fact":"go test"}`},
		"denied": {agent.Event{Kind: agent.EventToolDenied, Turn: 1, Tool: tool, Denial: &agent.DenialInfo{Rule: "no-net", Fact: "curl x", Reason: "no network"}},
			`{"type":"decision","turn":1,"id":"c1","name":"bash","decision":"deny","rule":"no-net","fact":"curl x","reason":"no network"}`},
		"bash result": {agent.Event{Kind: agent.EventToolResult, Turn: 1, Tool: tool, Result: &agent.ToolResultInfo{ExitCode: &exit1, Duration: 1200 * time.Millisecond, Content: "FAIL", IsError: false}},
			`{"type":"tool_result","turn":1,"id":"c1","name":"bash","is_error":false,"exit_code":1,"duration_ms":1200,"content":"FAIL"}`},
		"edit result": {agent.Event{Kind: agent.EventToolResult, Turn: 3, Tool: &agent.ToolCallInfo{ID: "c3", Name: "edit"}, Result: &agent.ToolResultInfo{Content: "Edited a.go", Diff: "-a\n+b\n", Changed: []string{"a.go"}}},
			`{"type":"tool_result","turn":3,"id":"c3","name":"edit","is_error":false,"duration_ms":0,"content":"Edited a.go","diff":"-a\n+b\n","changed":["a.go"]}`},
		"limit": {agent.Event{Kind: agent.EventLimit, Text: "reached --max-turns 2"}, `{"type":"limit","text":"reached --max-turns 2"}`},
		"history, user": {agent.Event{Kind: agent.EventHistory, Turn: 1, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("c1", "ok\tfine", false), llm.TextBlock("go on")}}},
			`{"type":"user","turn":1,"blocks":[{"type":"tool_result","tool_use_id":"c1","content":"ok\tfine"},{"type":"text","text":"go on"}]}`},
		"history, assistant": {agent.Event{Kind: agent.EventHistory, Turn: 2, Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ThinkingBlock("hm", "sig"), llm.ToolUseBlock("c2", "bash", json.RawMessage(`{"command":"ls"}`))}}},
			`{"type":"assistant","turn":2,"model":"m","blocks":[{"type":"thinking","text":"hm","signature":"sig"},{"type":"tool_use","id":"c2","name":"bash","input":{"command":"ls"}}]}`},
		"pending": {agent.Event{Kind: agent.EventToolDenied, Turn: 1, Tool: tool, Denial: &agent.DenialInfo{Rule: "tools.shell", Fact: "npm publish", Reason: "deferred", Pending: true}},
			`{"type":"decision","turn":1,"id":"c1","name":"bash","decision":"pending","rule":"tools.shell","fact":"npm publish","reason":"deferred"}`},
		"end, deferred": {agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{Turns: 1, ExitCode: 3, Pending: []agent.Pending{{ID: "c1", Tool: "bash", Fact: "npm publish", Rule: "tools.shell"}}}},
			`{"type":"end","exit_code":3,"status":"deferred","turns":1,"tool_calls":0,"input_tokens":0,"output_tokens":0,"elapsed_ms":0,"pending":[{"id":"c1","tool":"bash","fact":"npm publish","rule":"tools.shell"}]}`},
		"error": {agent.Event{Kind: agent.EventError, Err: errors.New("interrupted by terminated")}, `{"type":"error","error":"interrupted by terminated"}`},
		"end": {agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{Turns: 2, ToolCalls: 1, InputTokens: 30, OutputTokens: 9, Elapsed: 2 * time.Second, ExitCode: exit0, CostUSD: 0.25, CostKnown: true}},
			`{"type":"end","exit_code":0,"status":"done","turns":2,"tool_calls":1,"input_tokens":30,"output_tokens":9,"elapsed_ms":2000,"cost_usd":0.25}`},
		"end, unknown price": {agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{Turns: 1, ExitCode: 143}},
			`{"type":"end","exit_code":143,"status":"interrupted","turns":1,"tool_calls":0,"input_tokens":0,"output_tokens":0,"elapsed_ms":0}`},
	}
	timeRE := regexp.MustCompile(`,"time":"[^"]*"`)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _, warn, _ := sinktest.NewSession(t, nil, "task")
			s.Handle(tc.ev)
			lines := sinktest.ReadSession(t, s)
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

func TestSessionNamesDiffer(t *testing.T) {
	t.Parallel()
	st := session.Store{Dir: t.TempDir()}
	seen := map[string]bool{}
	for range 20 {
		w, err := st.CreateNew(sinktest.SessionStart(), session.Options{})
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
			s := sink.OpenSession(sink.SessionOptions{Dir: tc.dir, Warn: &warn}, sink.SessionHeader{Start: sinktest.SessionStart()})
			if s != nil {
				t.Fatalf("opened %s", s.Path())
			}
			if !strings.HasPrefix(warn.String(), tc.want) {
				t.Errorf("warning %q, want prefix %q", warn.String(), tc.want)
			}
			// A nil log records nothing and does not panic.
			s.Handle(agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{}})
			if err := s.Close(); err != nil || s.Path() != "" {
				t.Errorf("nil log: Close %v, Path %q", err, s.Path())
			}
		})
	}
}

func TestSessionWriteFailure(t *testing.T) {
	t.Parallel()
	s, _, warn, notes := sinktest.NewSession(t, nil, "task")
	s.Handle(agent.Event{Kind: agent.EventTurnStart, Turn: 1})
	sink.SessionFile(s).Close() // the file goes away under the log
	s.Handle(agent.Event{Kind: agent.EventNotice, Text: "lost"})
	s.Handle(agent.Event{Kind: agent.EventNotice, Text: "also lost"})
	s.Handle(agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{}})
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
	if lines, err := sinktest.SessionLines(data); err != nil || len(lines) != 2 {
		t.Errorf("lines before the failure: %q, %v", lines, err)
	}
}

const testSecret = "sk-test-secret-0123456789"

func TestSessionRedaction(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		ev      agent.Event
		prompt  string
		want    string // a substring of the line
		wantAll bool   // the whole line was replaced
	}{
		"prompt": {prompt: "use " + testSecret + " please", want: `"prompt":"use [REDACTED] please"`},
		"tool input value": {ev: agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "bash", Input: json.RawMessage(`{"command":"curl -H 'x-api-key: ` + testSecret + `' x","env":[{"k":"` + testSecret + `"}]}`)}},
			want: `"input":{"command":"curl -H 'x-api-key: [REDACTED]' x","env":[{"k":"[REDACTED]"}]}`},
		"tool input key":       {ev: agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "x", Input: json.RawMessage(`{"` + testSecret + `":1}`)}}, want: `"input":{"[REDACTED]":1}`},
		"tool input escaped":   {ev: agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "x", Input: json.RawMessage(`{"a":"\u0073k-test-secret-0123456789"}`)}}, want: `"input":{"a":"[REDACTED]"}`},
		"malformed tool input": {ev: agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "x", Input: json.RawMessage(`{"a":"` + testSecret)}}, want: `"input":"{\"a\":\"[REDACTED]"`},
		"result content and diff": {ev: agent.Event{Kind: agent.EventToolResult, Tool: &agent.ToolCallInfo{Name: "bash"}, Result: &agent.ToolResultInfo{Content: "KEY=" + testSecret, Diff: "+" + testSecret, Changed: []string{testSecret}}},
			want: `"content":"KEY=[REDACTED]","diff":"+[REDACTED]","changed":["[REDACTED]"]`},
		"message":             {ev: agent.Event{Kind: agent.EventMessageDone, Text: "the key is " + testSecret}, want: `"text":"the key is [REDACTED]"`},
		"error":               {ev: agent.Event{Kind: agent.EventError, Err: errors.New("401 for " + testSecret)}, want: `"error":"401 for [REDACTED]"`},
		"decision":            {ev: agent.Event{Kind: agent.EventToolDenied, Tool: &agent.ToolCallInfo{Name: "bash"}, Denial: &agent.DenialInfo{Rule: "r", Fact: "echo " + testSecret, Reason: testSecret}}, want: `"fact":"echo [REDACTED]","reason":"[REDACTED]"`},
		"longer secret first": {ev: agent.Event{Kind: agent.EventNotice, Text: testSecret + "-longer-part"}, want: `"text":"[REDACTED]"`},
		// The encoded text holds the secret across an escape: \n then the
		// rest; no value holds it, so the whole line goes.
		"across an escape":  {ev: agent.Event{Kind: agent.EventNotice, Text: "a\nabcdefghij"}, wantAll: true},
		"short values kept": {ev: agent.Event{Kind: agent.EventNotice, Text: "x ollama"}, want: `"text":"x ollama"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _, _, _ := sinktest.NewSession(t, []string{testSecret, testSecret + "-longer-part", "nabcdefghij", "x", "ollama", ""}, tc.prompt)
			if tc.ev.Kind != 0 {
				s.Handle(tc.ev)
			}
			lines := sinktest.ReadSession(t, s)
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
	s, _, _, _ := sinktest.NewSession(t, nil, "task")
	big := strings.Repeat("é", session.ContentMax) // 2 bytes each
	diff := strings.Repeat("+x\n", session.DiffMax)
	s.Handle(agent.Event{Kind: agent.EventToolResult, Tool: &agent.ToolCallInfo{Name: "read"}, Result: &agent.ToolResultInfo{Content: big, Diff: diff}})
	lines := sinktest.ReadSession(t, s)
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
		s := sink.OpenSession(sink.SessionOptions{Dir: dir, Secrets: []string{secret}, Now: sinktest.FixedClock(sinktest.SessionStart())}, sink.SessionHeader{Start: sinktest.SessionStart(), Prompt: text})
		if s == nil {
			t.Fatal("openSession failed")
		}
		defer os.Remove(s.Path())
		defer s.Close()
		s.Handle(agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: text, Input: json.RawMessage(input)}})
		s.Handle(agent.Event{Kind: agent.EventToolResult, Tool: &agent.ToolCallInfo{Name: "bash"}, Result: &agent.ToolResultInfo{Content: text, Diff: text}})
		s.Handle(agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{}})
		data, err := os.ReadFile(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		lines, err := sinktest.SessionLines(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) != 4 {
			t.Fatalf("%d lines, want 4", len(lines))
		}
		if len(secret) >= agent.SecretMinLen && bytes.Contains(data, []byte(secret)) {
			t.Fatalf("the log holds the secret %q:\n%s", secret, data)
		}
	})
}

func BenchmarkSessionToolResult(b *testing.B) {
	s := sink.OpenSession(sink.SessionOptions{Dir: b.TempDir(), Secrets: []string{testSecret, "sk-other-9876543210"}}, sink.SessionHeader{Start: sinktest.SessionStart()})
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
	ev := agent.Event{Kind: agent.EventToolResult, Turn: 1, Tool: &agent.ToolCallInfo{ID: "c", Name: "bash"},
		Result: &agent.ToolResultInfo{ExitCode: &exit, Content: content.String()}}
	b.SetBytes(int64(content.Len()))
	b.ResetTimer()
	for b.Loop() {
		s.Handle(ev)
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
		ev    agent.Event
		field string
		full  int
		max   int
	}{
		"tool input": {agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolCallInfo{Name: "write", Input: json.RawMessage(input)}}, "input", len(input), session.InputMax},
		"message":    {agent.Event{Kind: agent.EventMessageDone, Text: text}, "text", len(text), session.TextMax},
		"fact":       {agent.Event{Kind: agent.EventToolDenied, Tool: &agent.ToolCallInfo{Name: "bash"}, Denial: &agent.DenialInfo{Rule: "r", Fact: fact}}, "fact", len(fact), session.FieldMax},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _, _, _ := sinktest.NewSession(t, []string{secret}, "task")
			s.Handle(tc.ev)
			lines := sinktest.ReadSession(t, s)
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
