package acp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/acp/acptest"
	"github.com/rubichan/rubichan/run/agent"
)

// echoRun is a run that puts the prompt's text everywhere an event can
// carry text: thinking, a tool call's summary, arguments and result, the
// answer, a limit's message.
func echoRun(ctx context.Context, emit func(agent.Event), text string) error {
	in, _ := json.Marshal(map[string]string{"command": text, "path": text})
	call := &agent.ToolCallInfo{ID: "c1", Name: "bash", Summary: text, Input: in}
	emit(agent.Event{Kind: agent.EventThinkingDelta, Text: text})
	emit(agent.Event{Kind: agent.EventToolCall, Tool: call})
	emit(agent.Event{Kind: agent.EventToolDenied, Tool: call, Denial: &agent.DenialInfo{Rule: text, Fact: text, Reason: text}})
	emit(agent.Event{Kind: agent.EventToolResult, Tool: call, Result: &agent.ToolResultInfo{Content: text, IsError: true}})
	emit(agent.Event{Kind: agent.EventTextDelta, Text: text})
	emit(agent.Event{Kind: agent.EventLimit, Text: text})
	return nil
}

// FuzzStdoutPurity: whatever the prompt's text (and so the model's text,
// a tool call's arguments and result, all echoing it), every line on
// stdout is one valid ACP message (the client fails the test on any
// other) and each request gets its one response. The property: stdout
// carries nothing but ACP.
func FuzzStdoutPurity(f *testing.F) {
	for _, s := range []string{"hello", "line1\nline2", "\x00\x1b[31mred\u2028", `{"jsonrpc":"2.0"}`, "\r\n\r\n", strings.Repeat("é", 300), "\xff\xfe"} {
		f.Add(s)
	}
	v := acptest.NewValidator(f)
	f.Fuzz(func(t *testing.T, text string) {
		c := serveWith(t, v, echoRun, Options{})
		id := openSession(t, c)
		m := c.Call("session/prompt", promptParams(id, "x"+text))
		if m.Error != nil {
			t.Fatalf("prompt: %+v", m.Error)
		}
		responses := 0
		for _, line := range c.Lines() {
			var msg struct {
				JSONRPC string `json:"jsonrpc"`
				Method  string `json:"method"`
			}
			if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
				t.Fatalf("a line on stdout that is not a JSON-RPC 2.0 message: %q (%v)", line, err)
			}
			if msg.Method == "" {
				responses++
			}
		}
		if responses != 3 {
			t.Errorf("%d responses to 3 requests: %q", responses, c.Lines())
		}
	})
}
