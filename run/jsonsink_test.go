package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/events/eventstest"
	"github.com/rubichan/rubichan/run/exit"
)

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
		{exit.Usagef("bad flag"), 2, "error", "usage"},
		{exit.ConfigError{Err: exit.Usagef("no key")}, 2, "error", "config"},
		{exit.UsageError{Err: &config.Error{File: config.FromCommandLine, Err: errors.New("x")}}, 2, "error", "usage"},
		{exit.UsageError{Err: &config.Error{File: "c.toml", Err: errors.New("x")}}, 2, "error", "config"},
		{exit.Reported{Err: &agent.BudgetError{Limit: "max_cost", Max: 1}}, 4, "limit", "max_cost"},
		{exit.Reported{Err: &agent.BudgetError{Limit: "max_tokens_total", Max: 1}}, 4, "limit", "max_tokens"},
		{exit.Reported{Err: exit.CodeError{Code: exit.Limit, Err: &agent.BudgetError{Limit: "max_cost", Max: 1}}}, 4, "limit", "max_cost"},
		{exit.UsageError{Err: &agent.BudgetError{Limit: "max_cost", Max: 1, Model: "m"}}, 2, "error", "config"},
		{exit.Reported{Err: exit.CodeError{Code: exit.Limit, Err: agent.ErrTimeout, Kind: events.ErrTimeout}}, 4, "limit", "timeout"},
		{exit.Reported{Err: exit.CodeError{Code: exit.Provider, Err: fmt.Errorf("model request failed: %w", &llm.APIError{Kind: llm.KindRateLimit, Retryable: true})}}, 5, "error", "rate_limit"},
		{exit.Reported{Err: exit.CodeError{Code: exit.Policy, Err: errors.New("x"), Kind: events.ErrMaxDenials}}, 3, "denied", "max_denials"},
		{exit.Reported{Err: exit.SignalError{Signal: syscall.SIGTERM}}, 143, "interrupted", "interrupted"},
		{exit.Reported{Err: exit.StdoutError{Err: syscall.EPIPE}}, 141, "error", "broken_pipe"},
		{exit.CodeError{Code: exit.Failure, Err: errors.New("tool bash: boom")}, 1, "error", "internal"},
	}
	for _, tc := range tests {
		status, e := exit.Outcome(tc.err, tc.code)
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
		w.cancel(exit.SignalError{Signal: syscall.SIGTERM})
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
		env.Environ = func() []string { return []string{"PATH=/usr/bin:/bin"} }
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
			if code != exit.BrokenPipe && !(code != exit.OK && bytes.Contains(w.failed, []byte(`"type":"result"`))) {
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
		evs := eventstest.StreamOf(t, out)
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
	if code != exit.OK || out != string(events.Schema()) || errOut != "" {
		t.Fatalf("exit %d, stderr %q, stdout equal to the schema: %v", code, errOut, out == string(events.Schema()))
	}
}
