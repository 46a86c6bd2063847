package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

// syncBuffer is stdout, written by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// FuzzStdoutPurity: whatever the prompt text (and so the model's text, a
// tool call's arguments and its result, all echoing it), every line on
// stdout is one JSON-RPC 2.0 message, and each request gets exactly one
// response. The property: stdout carries nothing but ACP.
func FuzzStdoutPurity(f *testing.F) {
	for _, s := range []string{"hello", "line1\nline2", "\x00\x1b[31mred\u2028", `{"jsonrpc":"2.0"}`, "\r\n\r\n", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var out syncBuffer
		srv := NewServer(&out, Options{Open: func(ctx context.Context, o OpenOptions) (Engine, error) {
			return &fakeEngine{emit: o.Emit, run: func(ctx context.Context, emit func(agent.Event), text string) error {
				in, _ := json.Marshal(map[string]string{"command": text})
				call := &agent.ToolCallInfo{ID: "c1", Name: "bash", Summary: text, Input: in}
				emit(agent.Event{Kind: agent.EventThinkingDelta, Text: text})
				emit(agent.Event{Kind: agent.EventToolCall, Tool: call})
				emit(agent.Event{Kind: agent.EventToolResult, Tool: call, Result: &agent.ToolResultInfo{Content: text, IsError: true}})
				emit(agent.Event{Kind: agent.EventTextDelta, Text: text})
				emit(agent.Event{Kind: agent.EventLimit, Text: text})
				return nil
			}}, nil
		}})
		prompt, _ := json.Marshal(promptParams("sess-1", "x"+text))
		var in bytes.Buffer
		in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}` + "\n")
		// Requests are served concurrently: the prompt goes in a second
		// Serve, on the session the first opened, re-registered as it was.
		srv.Serve(context.Background(), &in)
		srv2in := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":` + string(prompt) + "}\n"
		srv.mu.Lock()
		srv.sessions = map[string]*session{}
		srv.mu.Unlock()
		ss := &session{srv: srv, id: "sess-1", cwd: "/"}
		eng, _ := srv.opt.Open(context.Background(), OpenOptions{Emit: ss.emit})
		ss.eng = eng
		srv.sessions["sess-1"] = ss
		srv.inited = true
		srv.Serve(context.Background(), strings.NewReader(srv2in))
		sc := bufio.NewScanner(bytes.NewReader(out.b.Bytes()))
		sc.Buffer(nil, 1<<24)
		responses := map[string]int{}
		for sc.Scan() {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("a line on stdout that is not a JSON-RPC 2.0 message: %q (%v)", sc.Text(), err)
			}
			if m.Method == "" {
				responses[string(m.ID)]++
			}
		}
		for _, id := range []string{"1", "2", "3"} {
			if responses[id] != 1 {
				t.Errorf("request %s got %d responses: %s", id, responses[id], out.b.String())
			}
		}
	})
}
