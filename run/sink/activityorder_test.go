package sink_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/sink"
)

// TestActivityResultsInCallOrder: calls run at once report their results
// as each finishes; the activity lines show them in call order, naming
// each call, one line per call.
func TestActivityResultsInCallOrder(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	a := sink.NewActivity(&out, sink.ActivityOptions{})
	call := func(id, cmd string) *agent.ToolCallInfo {
		return &agent.ToolCallInfo{ID: id, Name: "bash", Summary: cmd}
	}
	c1, c2, c3, c4 := call("c1", "sleep 0.5; echo 1"), call("c2", "sleep 0.2; echo 2"), call("c3", "cat x"), call("c4", "true")
	zero := 0
	res := func(ti *agent.ToolCallInfo, ms int) agent.Event {
		return agent.Event{Kind: agent.EventToolResult, Tool: ti, Result: &agent.ToolResultInfo{ExitCode: &zero, Duration: time.Duration(ms) * time.Millisecond}}
	}
	for _, ev := range []agent.Event{
		{Kind: agent.EventToolCall, Tool: c1}, {Kind: agent.EventToolCall, Tool: c2}, {Kind: agent.EventToolCall, Tool: c3},
		res(c2, 200),
		{Kind: agent.EventToolResult, Tool: c3, Result: &agent.ToolResultInfo{IsError: true, NotRun: true, Content: "denied"}},
		res(c1, 500),
		{Kind: agent.EventToolCall, Tool: c4}, res(c4, 1),
	} {
		a.Handle(ev)
	}
	want := "▸ bash  sleep 0.5; echo 1\n▸ bash  sleep 0.2; echo 2\n▸ bash  cat x\n" +
		"✓ bash  sleep 0.5; echo 1: exit 0 · 0.5s\n✓ bash  sleep 0.2; echo 2: exit 0 · 0.2s\n" +
		"▸ bash  true\n✓ exit 0 · 1ms\n"
	if out.String() != want {
		t.Errorf("activity:\n%s\nwant:\n%s", out.String(), want)
	}
}
