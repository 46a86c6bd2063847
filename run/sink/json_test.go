package sink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/events/eventstest"
	"github.com/rubichan/rubichan/run/exit"
)

// TestJSONSink drives the sink with events and checks what it writes:
// events before init wait for it, the result comes once and last, a
// tool's content is capped, arguments that are not JSON become a string.
func TestJSONSink(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	clock := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	js := NewJSON(&out, true, "id-1", func() time.Time { clock = clock.Add(time.Millisecond); return clock })
	js.Begin(JSONRun{Redact: agent.NewRedactor([]string{"sk-secret-value"})})
	js.Handle(agent.Event{Kind: agent.EventNotice, Text: "early note with sk-secret-value"})
	js.Init(events.Init{Tools: []string{}, Policy: events.Policy{SHA256: strings.Repeat("0", 64)},
		Sandbox: events.Sandbox{Mode: "off", Network: "allowed"}})
	call := &agent.ToolCallInfo{ID: "c1", Name: "bash", Input: json.RawMessage("{\"command\":\n \"ls\"}")}
	bad := &agent.ToolCallInfo{ID: "c2", Name: "bash", Input: json.RawMessage(`{"command": 1`)}
	for _, ev := range []agent.Event{
		{Kind: agent.EventTurnStart, Turn: 1},
		{Kind: agent.EventToolCall, Turn: 1, Tool: call},
		{Kind: agent.EventToolAllowed, Turn: 1, Tool: call, Allow: &agent.AllowInfo{Rule: "r"}},
		{Kind: agent.EventToolResult, Turn: 1, Tool: call, Result: &agent.ToolResultInfo{Content: strings.Repeat("é", events.ContentMax), Changed: []string{"b", "a"}}},
		{Kind: agent.EventToolCall, Turn: 1, Tool: bad},
		{Kind: agent.EventToolDenied, Turn: 1, Tool: bad, Denial: &agent.DenialInfo{Rule: "d", Ask: true}},
		{Kind: agent.EventTurnDone, Summary: &agent.Summary{Turns: 1, ToolCalls: 2, Denials: 1}},
	} {
		js.Handle(ev)
	}
	if err := js.Finish(nil, 0); err != nil {
		t.Fatal(err)
	}
	js.Finish(errors.New("again"), 1)
	js.Handle(agent.Event{Kind: agent.EventNotice, Text: "late"})
	evs := eventstest.StreamOf(t, out.Bytes())
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
	js := NewJSON(&out, false, "id", nil)
	js.Init(events.Init{})
	js.Handle(agent.Event{Kind: agent.EventTextDelta, Turn: 1, Text: "Hi"})
	js.Handle(agent.Event{Kind: agent.EventMessageDone, Turn: 1, Text: "Hi"})
	js.Finish(exit.Reported{Err: exit.CodeError{Code: exit.Limit, Err: errors.New("reached --timeout 1s"), Kind: events.ErrTimeout}}, exit.Limit)
	evs := eventstest.StreamOf(t, out.Bytes())
	if len(evs) != 1 || evs[0]["status"] != "limit" || evs[0]["final_text"] != "Hi" {
		t.Fatalf("got %v", evs)
	}
}
