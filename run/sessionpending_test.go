package run

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
)

// TestSessionPendings: the engine's pending calls reach the session file
// (and the stderr report) field for field, and a run without any records
// none (the end line omits "pending").
func TestSessionPendings(t *testing.T) {
	t.Parallel()
	in := json.RawMessage(`{"command":"make && touch out"}`)
	tests := map[string]struct {
		in   []agent.Pending
		want []session.Pending
	}{
		"none": {nil, nil},
		"one fact": {[]agent.Pending{{ID: "c1", Tool: "bash", Fact: "npm publish", Rule: "tools.shell", Input: in}},
			[]session.Pending{{ID: "c1", Tool: "bash", Fact: "npm publish", Rule: "tools.shell", Input: in}}},
		"facts and diff": {
			[]agent.Pending{{ID: "c2", Tool: "edit", Fact: "f", Rule: "r", Diff: "-a\n+b\n", Input: in,
				Facts: []agent.PendingFact{{Fact: "command: make", Rule: "tools.shell"}, {Fact: "write: out", Rule: "tools.write"}}}},
			[]session.Pending{{ID: "c2", Tool: "edit", Fact: "f", Rule: "r", Diff: "-a\n+b\n", Input: in,
				Facts: []session.PendingFact{{Fact: "command: make", Rule: "tools.shell"}, {Fact: "write: out", Rule: "tools.write"}}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := sink.SessionPendings(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("sessionPendings = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
