package agent_test

import (
	"strconv"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

// TestEventKindString pins every kind's name: the session file records an
// event's kind by it (lower-cased), so a renamed or reordered kind would
// change the file format.
func TestEventKindString(t *testing.T) {
	t.Parallel()
	want := []string{"Notice", "TurnStart", "TextDelta", "MessageDone", "StreamCut", "Retry", "ToolCall", "ToolDenied",
		"ToolResult", "Limit", "Error", "TurnDone", "ToolAllowed", "ThinkingDelta", "Hook", "Compaction", "VerifyStart",
		"Verify", "History", "Subquery"}
	kinds := []agent.EventKind{agent.EventNotice, agent.EventTurnStart, agent.EventTextDelta, agent.EventMessageDone,
		agent.EventStreamCut, agent.EventRetry, agent.EventToolCall, agent.EventToolDenied, agent.EventToolResult,
		agent.EventLimit, agent.EventError, agent.EventTurnDone, agent.EventToolAllowed, agent.EventThinkingDelta,
		agent.EventHook, agent.EventCompaction, agent.EventVerifyStart, agent.EventVerify, agent.EventHistory,
		agent.EventSubquery}
	for i, k := range kinds {
		if int(k) != i+1 {
			t.Errorf("%s = %d, want %d", want[i], k, i+1)
		}
		if got := k.String(); got != want[i] {
			t.Errorf("EventKind(%d).String() = %q, want %q", k, got, want[i])
		}
	}
	for _, k := range []agent.EventKind{0, agent.EventSubquery + 1, 255} {
		if got, want := k.String(), "EventKind("+strconv.Itoa(int(k))+")"; got != want {
			t.Errorf("EventKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}
