package mcp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/mcp/mcptest"
)

// TestMain lets the test binary be a stdio MCP server (the helper process
// of the stdio tests).
func TestMain(m *testing.M) {
	if os.Getenv("RUBICHAN_MCPTEST_SERVE") == "1" {
		mcptest.ServeStdio(context.Background())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func inProcess(t testing.TB, name string, opt mcptest.Options) ServerConfig {
	t.Helper()
	tr, err := mcptest.InProcess(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Name: name, Transport: tr, StartupTimeout: 5 * time.Second, CallTimeout: 5 * time.Second}
}

func toolByName(t *testing.T, m *Manager, name string) toolkit.Tool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s among %d", name, len(m.Tools()))
	return nil
}

func call(t *testing.T, tl toolkit.Tool, args string) toolkit.Result {
	t.Helper()
	res, err := tl.Run(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestStartOffersTools(t *testing.T) {
	t.Parallel()
	m := Start(context.Background(), []ServerConfig{inProcess(t, "srv", mcptest.Options{})}, Options{})
	defer m.Close()
	st := m.Status()
	if len(st) != 1 || st[0].State != StateReady {
		t.Fatalf("status: %+v", st)
	}
	var names []string
	for _, ti := range st[0].Tools {
		names = append(names, ti.Name+"="+ti.Policy)
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"mcp__srv__echo=srv/echo", "mcp__srv__choice=srv/choice", "mcp__srv__dotted_name=srv/dotted.name"} {
		if !strings.Contains(got, want) {
			t.Errorf("tools %s lack %s", got, want)
		}
	}
	notes := strings.Join(st[0].Notes, "\n")
	if !strings.Contains(notes, "tool choice: its input schema was simplified (dropped top-level oneOf)") {
		t.Errorf("notes: %s", notes)
	}
	spec := toolByName(t, m, "mcp__srv__choice").Spec()
	if strings.Contains(string(spec.Schema), "oneOf") || !strings.Contains(string(spec.Schema), `"type":"object"`) {
		t.Errorf("schema not simplified: %s", spec.Schema)
	}
	eff, err := toolByName(t, m, "mcp__srv__echo").Effects(json.RawMessage(`{"text":"x"}`))
	if err != nil || eff.Kind != toolkit.EffectMCP || eff.Tool != "srv/echo" || !eff.ReadOnlyHint {
		t.Errorf("effects: %+v %v", eff, err)
	}
	if eff, _ := toolByName(t, m, "mcp__srv__fail").Effects(json.RawMessage(`{}`)); eff.ReadOnlyHint {
		t.Errorf("fail claims to be read-only: %+v", eff)
	}
	if _, err := toolByName(t, m, "mcp__srv__echo").Effects(json.RawMessage(`[1]`)); err == nil {
		t.Error("array arguments accepted")
	}
}

func TestCalls(t *testing.T) {
	t.Parallel()
	cancelled := make(chan bool, 1)
	cfg := inProcess(t, "srv", mcptest.Options{Cancelled: cancelled})
	cfg.CallTimeout = 200 * time.Millisecond
	m := Start(context.Background(), []ServerConfig{cfg}, Options{})
	defer m.Close()
	for _, tc := range []struct {
		tool, args, want string
		isErr            bool
	}{
		{"mcp__srv__echo", `{"text":"hello"}`, "hello", false},
		{"mcp__srv__echo", ``, "", false},
		{"mcp__srv__fail", `{}`, "it failed", true},
		{"mcp__srv__image", `{}`, "[image: image/png, 4 bytes, not shown]", false},
		{"mcp__srv__slow", `{}`, "did not answer the call of slow within 200ms (its call_timeout); the request was cancelled", true},
		{"mcp__srv__echo", `"x"`, "arguments must be a JSON object", true},
	} {
		res := call(t, toolByName(t, m, tc.tool), tc.args)
		if res.IsError != tc.isErr || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s %s: got %+v, want %q (error %v)", tc.tool, tc.args, res, tc.want, tc.isErr)
		}
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Error("the server never saw the slow call cancelled")
	}
}

func TestAllowListAndCollisions(t *testing.T) {
	t.Parallel()
	a := inProcess(t, "a.b", mcptest.Options{})
	a.Tools = []string{"echo"}
	b := inProcess(t, "a_b", mcptest.Options{})
	b.Tools = []string{"echo", "fail"}
	m := Start(context.Background(), []ServerConfig{a, b}, Options{})
	defer m.Close()
	st := m.Status()
	if len(st[0].Tools) != 1 || st[0].Tools[0].Name != "mcp__a_b__echo" {
		t.Errorf("allow-list: %+v", st[0].Tools)
	}
	if len(st[1].Tools) != 1 || st[1].Tools[0].Policy != "a_b/fail" {
		t.Errorf("collision not refused: %+v", st[1].Tools)
	}
	if n := strings.Join(st[1].Notes, ""); !strings.Contains(n, "tool echo left out: its name mcp__a_b__echo is taken by a.b/echo") {
		t.Errorf("notes: %q", n)
	}
}

func TestToolName(t *testing.T) {
	t.Parallel()
	for in, want := range map[[2]string]string{
		{"github", "get_issue"}:         "mcp__github__get_issue",
		{"my server", "a.b/c"}:          "mcp__my_server__a_b_c",
		{"x", strings.Repeat("y", 100)}: "mcp__x__" + strings.Repeat("y", 56),
	} {
		if got := ToolName(in[0], in[1]); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestInputSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in         any
		want, note string
		err        bool
	}{
		{nil, `{"properties":{},"type":"object"}`, "", false},
		{map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}}}, `{"properties":{"a":{"type":"string"}},"type":"object"}`, "", false},
		{json.RawMessage(`{"type":"object","anyOf":[{}],"properties":{}}`), `{"properties":{},"type":"object"}`, "dropped top-level anyOf", false},
		{json.RawMessage(`{"type":"string"}`), "", "", true},
		{json.RawMessage(`[1]`), "", "", true},
		{json.RawMessage(`{"type":["object","null"]}`), "", "", true},
	} {
		raw, note, err := inputSchema(tc.in)
		if (err != nil) != tc.err || string(raw) != tc.want || !strings.Contains(note, tc.note) {
			t.Errorf("%v: got %s %q %v", tc.in, raw, note, err)
		}
	}
}
