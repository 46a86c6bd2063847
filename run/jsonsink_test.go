package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/events/eventstest"
	"github.com/rubichan/rubichan/run/exit"
)

func eventsOf(t testing.TB, out []byte) []eventstest.Event {
	t.Helper()
	v, err := eventsValidator()
	if err != nil {
		t.Fatal(err)
	}
	evs, err := v.Stream(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return evs
}

// TestJSONSink drives the sink with events and checks what it writes:
// events before init wait for it, the result comes once and last, a
// tool's content is capped, arguments that are not JSON become a string.
func TestJSONSink(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	clock := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	js := newJSONSink(&out, true, "id-1", func() time.Time { clock = clock.Add(time.Millisecond); return clock })
	js.red = newRedactor([]string{"sk-secret-value"})
	js.handle(Event{Kind: EventNotice, Text: "early note with sk-secret-value"})
	js.init(events.Init{Tools: []string{}, Policy: events.Policy{SHA256: strings.Repeat("0", 64)},
		Sandbox: events.Sandbox{Mode: "off", Network: "allowed"}})
	call := &ToolCallInfo{ID: "c1", Name: "bash", Input: json.RawMessage("{\"command\":\n \"ls\"}")}
	bad := &ToolCallInfo{ID: "c2", Name: "bash", Input: json.RawMessage(`{"command": 1`)}
	for _, ev := range []Event{
		{Kind: EventTurnStart, Turn: 1},
		{Kind: EventToolCall, Turn: 1, Tool: call},
		{Kind: EventToolAllowed, Turn: 1, Tool: call, Allow: &AllowInfo{Rule: "r"}},
		{Kind: EventToolResult, Turn: 1, Tool: call, Result: &ToolResultInfo{Content: strings.Repeat("é", events.ContentMax), Changed: []string{"b", "a"}}},
		{Kind: EventToolCall, Turn: 1, Tool: bad},
		{Kind: EventToolDenied, Turn: 1, Tool: bad, Denial: &DenialInfo{Rule: "d", Ask: true}},
		{Kind: EventTurnDone, Summary: &Summary{Turns: 1, ToolCalls: 2, Denials: 1}},
	} {
		js.handle(ev)
	}
	if err := js.finish(nil, 0); err != nil {
		t.Fatal(err)
	}
	js.finish(errors.New("again"), 1)
	js.handle(Event{Kind: EventNotice, Text: "late"})
	evs := eventsOf(t, out.Bytes())
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type())
	}
	want := "init notice turn_start tool_call policy_decision tool_result tool_call policy_decision result"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("types %s\nwant %s", got, want)
	}
	if msg := evs[1]["message"]; msg != "early note with [REDACTED]" {
		t.Errorf("notice %q", msg)
	}
	if in := evs[3]["input"].(map[string]any); in["command"] != "ls" {
		t.Errorf("input %v", in)
	}
	if res := evs[5]; len(res["content"].(string)) > events.ContentMax || res["truncated"] != true {
		t.Errorf("content of %d bytes, truncated %v", len(res["content"].(string)), res["truncated"])
	}
	if in := evs[6]["input"]; in != `{"command": 1` {
		t.Errorf("malformed input %#v, want the raw string", in)
	}
	if d := evs[7]; d["decision"] != "ask" || d["resolved_as"] != "deny" {
		t.Errorf("decision %v", d)
	}
	if r := evs[8]; fmt.Sprint(r["files_changed"]) != "[a b]" || r["status"] != "success" || r["denials"] != 1.0 {
		t.Errorf("result %v", r)
	}
}

// TestJSONSinkResultOnly: --output json writes the result object alone.
func TestJSONSinkResultOnly(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	js := newJSONSink(&out, false, "id", nil)
	js.init(events.Init{})
	js.handle(Event{Kind: EventTextDelta, Turn: 1, Text: "Hi"})
	js.handle(Event{Kind: EventMessageDone, Turn: 1, Text: "Hi"})
	js.finish(reportedError{Err: exit.CodeError{Code: exit.Limit, Err: errors.New("reached --timeout 1s"), Kind: events.ErrTimeout}}, exitLimit)
	evs := eventsOf(t, out.Bytes())
	if len(evs) != 1 || evs[0]["status"] != "limit" || evs[0]["final_text"] != "Hi" {
		t.Fatalf("got %v", evs)
	}
}

// TestOutcome maps the errors that end a run to the result's status and
// error type.
func TestOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err          error
		code         int
		status, kind string
	}{
		{nil, 0, "success", ""},
		{usagef("bad flag"), 2, "error", "usage"},
		{settingsError{usagef("no key")}, 2, "error", "config"},
		{usageError{Err: &config.Error{File: config.FromCommandLine, Err: errors.New("x")}}, 2, "error", "usage"},
		{usageError{Err: &config.Error{File: "c.toml", Err: errors.New("x")}}, 2, "error", "config"},
		{reportedError{Err: &budgetError{Limit: "max_cost", Max: 1}}, 4, "limit", "max_cost"},
		{reportedError{Err: &budgetError{Limit: "max_tokens_total", Max: 1}}, 4, "limit", "max_tokens"},
		{reportedError{Err: exit.CodeError{Code: exit.Limit, Err: &budgetError{Limit: "max_cost", Max: 1}}}, 4, "limit", "max_cost"},
		{usageError{Err: &budgetError{Limit: "max_cost", Max: 1, Model: "m"}}, 2, "error", "config"},
		{reportedError{Err: exit.CodeError{Code: exit.Limit, Err: agent.ErrTimeout, Kind: events.ErrTimeout}}, 4, "limit", "timeout"},
		{reportedError{Err: exit.CodeError{Code: exit.Provider, Err: fmt.Errorf("model request failed: %w", &llm.APIError{Kind: llm.KindRateLimit, Retryable: true})}}, 5, "error", "rate_limit"},
		{reportedError{Err: exit.CodeError{Code: exit.Policy, Err: errors.New("x"), Kind: events.ErrMaxDenials}}, 3, "denied", "max_denials"},
		{reportedError{Err: SignalError{Signal: syscall.SIGTERM}}, 143, "interrupted", "interrupted"},
		{reportedError{Err: stdoutError{Err: syscall.EPIPE}}, 141, "error", "broken_pipe"},
		{exit.CodeError{Code: exit.Failure, Err: errors.New("tool bash: boom")}, 1, "error", "internal"},
	}
	for _, tc := range tests {
		status, e := outcome(tc.err, tc.code)
		kind := ""
		if e != nil {
			kind = e.Type
		}
		if status != tc.status || kind != tc.kind {
			t.Errorf("outcome(%v, %d) = %s %s, want %s %s", tc.err, tc.code, status, kind, tc.status, tc.kind)
		}
	}
}

// cutWriter is a stdout that fails after n lines: with EPIPE (its reader
// went away) or by cancelling the run as a SIGTERM would.
type cutWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	n      int
	pipe   bool
	cancel context.CancelCauseFunc
	failed []byte // the first line refused
}

func (w *cutWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		if w.pipe {
			if w.failed == nil {
				w.failed = bytes.Clone(p)
			}
			return 0, syscall.EPIPE
		}
		w.cancel(SignalError{Signal: syscall.SIGTERM})
	}
	w.n--
	return w.buf.Write(p)
}

// randomScript builds a scripted model from fuzz bytes: turns of text,
// thinking, allowed, denied, unknown and malformed tool calls, and fatal
// faults.
func randomScript(data []byte) llmtest.Script {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	var s llmtest.Script
	for range next()%6 + 1 {
		var t llmtest.Turn
		for range next() % 4 {
			t.Text = append(t.Text, fmt.Sprintf("piece%d <&>\n", next()))
		}
		if next()%3 == 0 {
			t.Thinking = []string{"hmm"}
		}
		switch next() % 8 {
		case 1:
			t.ToolCalls = []llmtest.ToolCall{{Name: "bash", Args: []string{`{"command":"echo hi"}`}}}
		case 2:
			t.ToolCalls = []llmtest.ToolCall{{Name: "bash", Args: []string{`{"command":"curl x"}`}}}
		case 3:
			t.ToolCalls = []llmtest.ToolCall{{Name: "nosuch", Args: []string{`{}`}}, {Name: "read", Args: []string{`{"path":`}}}
		case 4:
			t.ToolCalls = []llmtest.ToolCall{{Name: "write", Args: []string{`{"path":"f.txt","content":"x"}`}}}
		case 5:
			t.Fault = &llmtest.Fault{Status: 401, Type: "authentication_error", Message: "no"}
		case 6:
			t.Fault = &llmtest.Fault{Status: 400, Type: "invalid_request_error", Message: "bad"}
		}
		t.Usage = llmtest.Usage{InputTokens: next(), OutputTokens: next()}
		s.Turns = append(s.Turns, t)
	}
	// The run ends by the script: a request past it would be retried.
	s.Turns = append(s.Turns, llmtest.Turn{Text: []string{"done"}})
	return s
}

// FuzzStreamJSON runs random scripted runs in stream-json mode, some cut
// short by a SIGTERM or a broken stdout after some lines, and checks the
// property of the issue: every line is a valid event, init comes first,
// and the result comes last with the exit code the run returns — unless
// stdout broke, when what was written is valid and the exit code is 141.
func FuzzStreamJSON(f *testing.F) {
	for _, seed := range []string{"\x00", "\x01\x02a\x01", "\x03\x01\x00\x00\x02\x02\x02", "\x02\x03\x00\x00\x05", "\x05\x01\x01\x04\x00\x00\x03\x00\x01\x07", "\xff\x07\x03\x03"} {
		f.Add([]byte(seed), uint8(0))
		f.Add([]byte(seed), uint8(3))
		f.Add([]byte(seed), uint8(130))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		srv := llmtest.NewServer(randomScript(data))
		defer srv.Close()
		ws, state := t.TempDir(), t.TempDir()
		env := fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-fuzz-key-123", "ANTHROPIC_BASE_URL": srv.URL(), "XDG_STATE_HOME": state})
		env.environ = func() []string { return []string{"PATH=/usr/bin:/bin"} }
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		w := &cutWriter{n: -1, cancel: cancel}
		if cut > 0 {
			w.n, w.pipe = int(cut%8), cut >= 128
		}
		args := []string{"rubichan", "exec", "--output", "stream-json", "--include-thinking", "-C", ws, "--max-turns", "4",
			"--allow", "shell:echo *", "--deny", "shell:curl *", "--allow", "write:**", "--timeout", "20s", "go"}
		code := runMain(ctx, args, nil, w, &bytes.Buffer{}, env)
		out := w.buf.Bytes()
		if w.failed != nil {
			// A run that failed keeps its exit code when only its
			// result could not be written.
			if code != exitBrokenPipe && !(code != exitOK && bytes.Contains(w.failed, []byte(`"type":"result"`))) {
				t.Fatalf("exit %d after a broken stdout (at %s), want 141", code, w.failed)
			}
			if len(out) > 0 {
				v, _ := eventsValidator()
				for _, line := range bytes.SplitAfter(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
					if err := v.Validate(line); err != nil {
						t.Fatal(err)
					}
				}
			}
			return
		}
		evs := eventsOf(t, out)
		res := evs[len(evs)-1]
		if res["exit_code"] != float64(code) {
			t.Fatalf("result exit_code %v, the run exited %d\n%s", res["exit_code"], code, out)
		}
		if bytes.Contains(out, []byte("sk-ant-fuzz")) {
			t.Fatalf("the key is in the output:\n%s", out)
		}
	})
}

// TestSchemaCommand: `rubichan schema events` prints the embedded schema
// byte for byte.
func TestSchemaCommand(t *testing.T) {
	code, out, errOut := runCLI(t, fakeEnv(nil), "", "schema", "events")
	if code != exitOK || out != string(events.Schema()) || errOut != "" {
		t.Fatalf("exit %d, stderr %q, stdout equal to the schema: %v", code, errOut, out == string(events.Schema()))
	}
}
