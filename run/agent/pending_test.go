package agent_test

import (
	"slices"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

func TestPendingAsked(t *testing.T) {
	t.Parallel()
	facts := []agent.PendingFact{{Fact: "command: make", Rule: "tools.shell"}, {Fact: "write: out", Rule: "tools.write"}}
	tests := map[string]struct {
		p    agent.Pending
		want []agent.PendingFact
	}{
		"one fact":     {agent.Pending{Fact: "npm publish", Rule: "tools.shell"}, []agent.PendingFact{{Fact: "npm publish", Rule: "tools.shell"}}},
		"listed facts": {agent.Pending{Fact: "make", Rule: "tools.shell", Facts: facts}, facts},
		"one listed":   {agent.Pending{Fact: "make", Rule: "r", Facts: facts[:1]}, facts[:1]},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.p.Asked(); !slices.Equal(got, tc.want) {
				t.Errorf("Asked() = %+v, want %+v", got, tc.want)
			}
		})
	}
}
