package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/acp/acptest"
	"github.com/rubichan/rubichan/run/agent/agenttest"
)

// acpAskPolicy asks for every write and command, as plain-off.toml of the
// line-mode approval script does.
const acpAskPolicy = `version = 1
[defaults]
decision = "ask"
[tools]
read  = "allow"
write = "ask"
shell = "ask"
[shell]
plain_programs = false
`

// acpSession is `rubichan acp` run in-process on pipes, with a scripted
// client on the other end.
type acpSession struct {
	*acptest.Client
	ws     string
	srv    *llmtest.Server
	stdin  *io.PipeWriter
	exited chan int
	stderr *lockedBuffer
}

// startACP starts `rubichan acp` against the scripted model on 127.0.0.1.
func startACP(t *testing.T, script llmtest.Script, args ...string) *acpSession {
	t.Helper()
	return startACPEnv(t, script, nil, args...)
}

// startACPEnv is [startACP] with more variables in its environment.
func startACPEnv(t *testing.T, script llmtest.Script, more map[string]string, args ...string) *acpSession {
	t.Helper()
	v := acptest.NewValidator(t)
	srv := llmtest.NewServer(script)
	t.Cleanup(srv.Close)
	ws, state := t.TempDir(), t.TempDir()
	pol := filepath.Join(t.TempDir(), "ask.toml")
	if err := os.WriteFile(pol, []byte(acpAskPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	env := fakeEnv(withVars(map[string]string{"ANTHROPIC_API_KEY": "sk-test-key-0123456789", "ANTHROPIC_BASE_URL": srv.URL(),
		"XDG_STATE_HOME": state, "HOME": "/nonexistent-home", "PATH": os.Getenv("PATH")}, more))
	env.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH")} }
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &acpSession{ws: ws, srv: srv, stdin: inW, exited: make(chan int, 1), stderr: &lockedBuffer{}}
	go func() {
		code := runMain(context.Background(), append([]string{"rubichan", "acp", "--provider", "anthropic", "--model", "test-model",
			"--policy", pol}, args...), inR, outW, s.stderr, env)
		outW.Close()
		inR.Close() // the client's writes fail rather than wait
		s.exited <- code
	}()
	s.Client = acptest.NewClient(t, v, outR, inW)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.exited:
		case <-time.After(acptest.Wait):
			t.Errorf("rubichan acp did not exit after its stdin closed")
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", s.stderr.String())
		}
	})
	return s
}

// newSession initializes and opens a session in the workspace.
func (s *acpSession) newSession(t *testing.T) string {
	t.Helper()
	var init struct {
		ProtocolVersion int `json:"protocolVersion"`
	}
	s.Result("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, &init)
	if init.ProtocolVersion != 1 {
		t.Fatalf("protocol version %d, want 1", init.ProtocolVersion)
	}
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	s.Result("session/new", map[string]any{"cwd": s.ws, "mcpServers": []any{}}, &ns)
	if ns.SessionID == "" {
		t.Fatal("no session id")
	}
	return ns.SessionID
}

// prompt sends one prompt and returns its stop reason.
func (s *acpSession) prompt(t *testing.T, id, text string) string {
	t.Helper()
	var res struct {
		StopReason string `json:"stopReason"`
	}
	s.Result("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": text}}}, &res)
	return res.StopReason
}

// bashCall and writeCall are scripted tool calls.
func bashCall(id, cmd string) llmtest.ToolCall {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return agenttest.Call(id, "bash", string(b))
}

func writeCall(id, path, content string) llmtest.ToolCall {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return agenttest.Call(id, "write", string(b))
}

// answerBy answers permission requests by the call's title.
func answerBy(t *testing.T, answers map[string]string, asked *[]string, offered *[][]string) func(json.RawMessage) any {
	return func(p json.RawMessage) any {
		var req struct {
			ToolCall struct {
				Title string `json:"title"`
			} `json:"toolCall"`
			Options []struct {
				OptionID string `json:"optionId"`
			} `json:"options"`
		}
		if err := json.Unmarshal(p, &req); err != nil {
			t.Errorf("permission request %s: %v", p, err)
		}
		*asked = append(*asked, req.ToolCall.Title)
		var ids []string
		for _, o := range req.Options {
			ids = append(ids, o.OptionID)
		}
		*offered = append(*offered, ids)
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": answers[req.ToolCall.Title]}}
	}
}

// TestACPSession holds one session through `rubichan acp` as an editor
// would: bad requests answered with JSON-RPC errors, then prompts whose
// calls the policy asks about, answered allow once, allow always (the
// second identical call is not asked again), reject (the call fails and
// the model is told) and allow for a write (its diff is the update's
// content); every message rubichan sends is valid under the ACP schema,
// and every prompt turn ends with a usage_update.
func TestACPSession(t *testing.T) {
	script := llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{bashCall("c1", "echo one")}, Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 10}},
		{Thinking: []string{"it said one"}, Text: []string{"first ", "done"}, Usage: llmtest.Usage{InputTokens: 120, OutputTokens: 5}},
		{ToolCalls: []llmtest.ToolCall{bashCall("c2", "echo two")}},
		{ToolCalls: []llmtest.ToolCall{bashCall("c3", "echo two")}},
		{Text: []string{"second done"}},
		{ToolCalls: []llmtest.ToolCall{writeCall("c4", "a.txt", "nope\n")}},
		{Text: []string{"third done"}},
		{ToolCalls: []llmtest.ToolCall{writeCall("c5", "a.txt", "hello\n")}},
		{Text: []string{"fourth done"}},
	}}
	s := startACP(t, script)
	var asked []string
	var offered [][]string
	s.Permission = answerBy(t, map[string]string{"bash: echo one": "allow_once", "bash: echo two": "allow_always",
		"write: a.txt": "reject_once"}, &asked, &offered)

	// A bad line and an unknown method are errors; the process stays up.
	s.SendRaw("this is not json")
	if e := s.WaitOrphanError(); e.Code != -32700 {
		t.Errorf("a line that is not JSON: error %+v, want -32700", e)
	}
	if m := s.Call("no/such_method", map[string]any{}); m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("unknown method: %+v", m)
	}
	if m := s.Call("session/new", map[string]any{"cwd": s.ws}); m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("session/new before initialize: %+v", m)
	}
	id := s.newSession(t)
	if m := s.Call("session/prompt", map[string]any{"sessionId": "nope", "prompt": []any{}}); m.Error == nil {
		t.Errorf("prompt of an unknown session: %+v", m)
	}

	for i, want := range []string{"end_turn", "end_turn", "end_turn"} {
		if got := s.prompt(t, id, "task "+string(rune('1'+i))); got != want {
			t.Errorf("prompt %d: stop reason %q, want %q", i+1, got, want)
		}
	}
	s.Permission = answerBy(t, map[string]string{"write: a.txt": "allow_once"}, &asked, &offered)
	if got := s.prompt(t, id, "task 4"); got != "end_turn" {
		t.Errorf("prompt 4: stop reason %q", got)
	}

	wantAsked := []string{"bash: echo one", "bash: echo two", "write: a.txt", "write: a.txt"}
	if !slices.Equal(asked, wantAsked) {
		t.Errorf("asked %q, want %q (the second echo two is the session's)", asked, wantAsked)
	}
	for _, o := range offered {
		if !slices.Equal(o, []string{"allow_once", "allow_always", "reject_once", "reject_always"}) {
			t.Errorf("options %q", o)
		}
	}
	reqs := s.srv.Requests()
	results := func(n int) []string {
		var w agenttest.WireRequest
		if err := reqs[n-1].JSON(&w); err != nil {
			t.Fatal(err)
		}
		return w.Results()
	}
	if len(reqs) != 9 {
		t.Fatalf("%d model requests, want 9", len(reqs))
	}
	for n, want := range map[int]string{2: "c1 ok: one", 4: "c2 ok: two", 5: "c3 ok: two", 7: "c4 error: The person in the editor refused"} {
		if r := results(n); len(r) != 1 || !strings.HasPrefix(r[0], want) {
			t.Errorf("request %d results %q, want %q…", n, r, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(s.ws, "a.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("a.txt %q %v", b, err)
	}

	ups := s.Updates()
	count := func(kind, status string) int {
		n := 0
		for _, u := range ups {
			if u.Kind() == kind && (status == "" || u["status"] == status) {
				n++
			}
		}
		return n
	}
	checks := []struct {
		kind, status string
		want         int
	}{
		{"tool_call", "pending", 5}, {"tool_call_update", "in_progress", 4}, {"tool_call_update", "completed", 4},
		{"tool_call_update", "failed", 1}, {"usage_update", "", 4}, {"agent_thought_chunk", "", 1},
	}
	for _, c := range checks {
		if got := count(c.kind, c.status); got != c.want {
			t.Errorf("%d %s %s updates, want %d", got, c.kind, c.status, c.want)
		}
	}
	var text strings.Builder
	for _, u := range ups {
		if u.Kind() == "agent_message_chunk" {
			text.WriteString(u["content"].(map[string]any)["text"].(string))
		}
		if u.Kind() == "tool_call" && u["toolCallId"] == "c1" && u["kind"] != "execute" {
			t.Errorf("bash's kind: %v", u)
		}
		if u.Kind() == "tool_call" && u["toolCallId"] == "c5" {
			locs, _ := u["locations"].([]any)
			if u["kind"] != "edit" || len(locs) != 1 || locs[0].(map[string]any)["path"] != filepath.Join(s.ws, "a.txt") {
				t.Errorf("write's kind and location: %v", u)
			}
		}
	}
	if text.String() != "first donesecond donethird donefourth done" {
		t.Errorf("agent text %q", text.String())
	}
	diff := s.WaitUpdate(func(u acptest.Update) bool { return u["toolCallId"] == "c5" && u["status"] == "completed" })
	content, _ := diff["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("the write's update has no content: %v", diff)
	}
	d := content[0].(map[string]any)
	if d["type"] != "diff" || d["path"] != filepath.Join(s.ws, "a.txt") || d["newText"] != "hello\n" || d["oldText"] != nil {
		t.Errorf("the write's diff: %v", d)
	}
	if st := s.stderr.String(); strings.Contains(st, "sk-test-key-0123456789") {
		t.Errorf("the key on stderr: %s", st)
	}
	goldenTranscript(t, filepath.Join("..", "testdata", "acp", "session.golden"), s.Lines(), s.ws, id)
}

// goldenTranscript compares what the agent sent with a golden file, the
// workspace and the session id replaced; -update rewrites it.
func goldenTranscript(t *testing.T, file string, lines []string, ws, id string) {
	t.Helper()
	wsJSON, _ := json.Marshal(ws)
	norm := strings.Join(lines, "\n") + "\n"
	norm = strings.ReplaceAll(norm, strings.Trim(string(wsJSON), `"`), "$WORK")
	norm = strings.ReplaceAll(norm, id, "$SESSION")
	norm = regexp.MustCompile(`"version":"[^"]*"`).ReplaceAllString(norm, `"version":"$$VERSION"`)
	if *update {
		if err := os.WriteFile(file, []byte(norm), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != norm {
		t.Errorf("transcript differs from %s (rerun with -update to accept):\n%s", file, norm)
	}
}

// lockedBuffer is a buffer safe for the concurrent writes of a run.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestACPCancel: session/cancel stops the running turn as Ctrl-C stops a
// line — the command in flight is stopped and still gets its result, the
// prompt ends "cancelled", and the next prompt goes on from a valid
// conversation (its request carries the call's result).
func TestACPCancel(t *testing.T) {
	script := llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{bashCall("c1", "sleep 30")}},
		{Text: []string{"after the cancel"}},
	}}
	s := startACP(t, script)
	var asked []string
	var offered [][]string
	s.Permission = answerBy(t, map[string]string{"bash: sleep 30": "allow_once"}, &asked, &offered)
	id := s.newSession(t)
	ch := s.Start("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "sleep"}}})
	s.WaitUpdate(func(u acptest.Update) bool { return u["toolCallId"] == "c1" && u["status"] == "in_progress" })
	start := time.Now()
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	m := s.Await(ch)
	if m.Error != nil || !strings.Contains(string(m.Result), `"stopReason":"cancelled"`) {
		t.Fatalf("the cancelled prompt: %s %+v", m.Result, m.Error)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the cancel took %v: the command was not stopped", d)
	}
	s.WaitUpdate(func(u acptest.Update) bool { return u["toolCallId"] == "c1" && u["status"] == "failed" })
	if got := s.prompt(t, id, "go on"); got != "end_turn" {
		t.Errorf("the next prompt: %q", got)
	}
	reqs := s.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	var w agenttest.WireRequest
	if err := reqs[1].JSON(&w); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, msg := range w.Messages {
		for _, b := range msg.Content {
			if b.Type == "tool_result" && b.ToolUseID == "c1" && b.IsError {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("the next request has no error result of c1: %+v", w.Messages)
	}
}

// TestACPLoad: session/list shows rubichan's sessions of the workspace;
// session/load continues one, replaying its user and agent messages and
// its tool calls as updates first; session/resume continues one without a
// replay. The next prompt's request carries the whole conversation.
func TestACPLoad(t *testing.T) {
	script := llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{bashCall("c1", "echo one")}},
		{Text: []string{"first done"}},
		{Text: []string{"loaded and going on"}},
		{Text: []string{"resumed"}},
	}}
	s := startACP(t, script)
	var asked []string
	var offered [][]string
	s.Permission = answerBy(t, map[string]string{"bash: echo one": "allow_once"}, &asked, &offered)
	id := s.newSession(t)
	s.prompt(t, id, "task one")
	s.Result("session/close", map[string]any{"sessionId": id}, nil)

	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Title     string `json:"title"`
		} `json:"sessions"`
	}
	s.Result("session/list", map[string]any{"cwd": s.ws}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != id || list.Sessions[0].Cwd != s.ws {
		t.Errorf("session/list: %+v, want %s in %s", list.Sessions, id, s.ws)
	}

	before := len(s.Updates())
	s.Result("session/load", map[string]any{"sessionId": id, "cwd": s.ws, "mcpServers": []any{}}, nil)
	var replayed []string
	for _, u := range s.Updates()[before:] {
		switch u.Kind() {
		case "user_message_chunk", "agent_message_chunk":
			replayed = append(replayed, u.Kind()+" "+u["content"].(map[string]any)["text"].(string))
		case "tool_call", "tool_call_update":
			replayed = append(replayed, fmt.Sprintf("%s %v %v", u.Kind(), u["toolCallId"], u["status"]))
		}
	}
	want := []string{"user_message_chunk task one", "tool_call c1 pending", "tool_call_update c1 completed", "agent_message_chunk first done"}
	if !slices.Equal(replayed, want) {
		t.Errorf("replayed %q, want %q", replayed, want)
	}
	if got := s.prompt(t, id, "task two"); got != "end_turn" {
		t.Errorf("the loaded session's prompt: %q", got)
	}
	s.Result("session/close", map[string]any{"sessionId": id}, nil)

	before = len(s.Updates())
	s.Result("session/resume", map[string]any{"sessionId": id, "cwd": s.ws, "mcpServers": []any{}}, nil)
	if n := len(s.Updates()) - before; n != 0 {
		t.Errorf("session/resume sent %d updates, want none", n)
	}
	if got := s.prompt(t, id, "task three"); got != "end_turn" {
		t.Errorf("the resumed session's prompt: %q", got)
	}
	reqs := s.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	var w agenttest.WireRequest
	if err := reqs[3].JSON(&w); err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, m := range w.Messages {
		for _, b := range m.Content {
			if m.Role == "user" && b.Type == "text" {
				users = append(users, b.Text)
			}
		}
	}
	if len(users) < 3 || !strings.HasSuffix(users[0], "task one") || users[len(users)-1] != "task three" {
		t.Errorf("the last request's user texts %q: not the whole conversation", users)
	}
}

// TestACPModel: a session offers its model as a configuration option
// (the model it started with, the provider's default and sub-query
// models); session/set_config_option switches the next requests to one of
// them, refuses one not offered, and under --max-cost refuses to switch,
// as line mode's /model does.
func TestACPModel(t *testing.T) {
	s := startACP(t, llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"ok"}}, {Text: []string{"ok"}}}})
	s.Result("initialize", map[string]any{"protocolVersion": 1}, nil)
	var ns struct {
		SessionID     string `json:"sessionId"`
		ConfigOptions []struct {
			ID           string `json:"id"`
			CurrentValue string `json:"currentValue"`
			Options      []struct {
				Value string `json:"value"`
			} `json:"options"`
		} `json:"configOptions"`
	}
	s.Result("session/new", map[string]any{"cwd": s.ws, "mcpServers": []any{}}, &ns)
	var values []string
	for _, o := range ns.ConfigOptions[0].Options {
		values = append(values, o.Value)
	}
	if ns.ConfigOptions[0].ID != "model" || ns.ConfigOptions[0].CurrentValue != "test-model" ||
		!slices.Equal(values, []string{"test-model", "claude-sonnet-5-5", "claude-haiku-5-5"}) {
		t.Errorf("config options %+v", ns.ConfigOptions)
	}
	if m := s.Call("session/set_config_option", map[string]any{"sessionId": ns.SessionID, "configId": "model", "value": "gpt-5.5"}); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("a model not offered: %+v", m)
	}
	s.Result("session/set_config_option", map[string]any{"sessionId": ns.SessionID, "configId": "model", "value": "claude-haiku-5-5"}, nil)
	s.prompt(t, ns.SessionID, "hi")
	var body struct {
		Model string `json:"model"`
	}
	if err := s.srv.Requests()[0].JSON(&body); err != nil || body.Model != "claude-haiku-5-5" {
		t.Errorf("the request's model %q (%v), want claude-haiku-5-5", body.Model, err)
	}

	capped := startACP(t, llmtest.Script{}, "--model", "claude-sonnet-5-5", "--max-cost", "5")
	id := capped.newSession(t)
	if m := capped.Call("session/set_config_option", map[string]any{"sessionId": id, "configId": "model", "value": "claude-haiku-5-5"}); m.Error == nil || !strings.Contains(m.Error.Message, "--max-cost") {
		t.Errorf("a switch under --max-cost: %+v", m)
	}
}

// TestACPClientMCP: an MCP server the client passes in session/new is
// started like a configured one: its tools are offered to the model
// (the real @modelcontextprotocol/server-everything over stdio).
func TestACPClientMCP(t *testing.T) {
	mods := mcpModules(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the MCP test server: %v", err)
	}
	s := startACP(t, llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"ok"}}}})
	s.Result("initialize", map[string]any{"protocolVersion": 1}, nil)
	// A name that cannot make a tool name is refused, as in a config file.
	if m := s.Call("session/new", map[string]any{"cwd": s.ws, "mcpServers": []any{map[string]any{
		"name": "bad name", "command": node, "args": []string{}, "env": []any{}}}}); m.Error == nil || !strings.Contains(m.Error.Message, `MCP server "bad name"`) {
		t.Errorf("a bad server name: %+v", m)
	}
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	s.Result("session/new", map[string]any{"cwd": s.ws, "mcpServers": []any{map[string]any{
		"name": "everything", "command": node, "args": []string{filepath.Join(mods, "server-everything", "dist", "index.js")},
		"env": []any{}}}}, &ns)
	s.prompt(t, ns.SessionID, "hi")
	var w agenttest.WireRequest
	if err := s.srv.Requests()[0].JSON(&w); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(w.Tools, func(tool struct {
		Name string `json:"name"`
	}) bool {
		return tool.Name == "mcp__everything__echo"
	}) {
		t.Errorf("the client's MCP server's tools are not offered: %+v", w.Tools)
	}
}
