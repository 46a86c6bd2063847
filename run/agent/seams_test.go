package agent_test

import (
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

// TestHookDecisions pins the decisions' words: the hook event of the
// session file and of the JSON output carries them.
func TestHookDecisions(t *testing.T) {
	t.Parallel()
	want := map[agent.HookDecision]string{
		agent.HookAllow: "allow", agent.HookDeny: "deny", agent.HookRewrite: "rewrite", agent.HookAppend: "append",
		agent.HookNone: "none", agent.HookFinish: "finish", agent.HookContinue: "continue", agent.HookFailed: "fail",
	}
	if len(want) != 8 {
		t.Fatalf("%d distinct decisions, want 8", len(want))
	}
	for d, w := range want {
		if string(d) != w {
			t.Errorf("decision %q, want %q", d, w)
		}
	}
}

// TestZeroKinds: the zero value of a verdict's or an operation's kind is
// none of the kinds, so a Verdict{} allows nothing.
func TestZeroKinds(t *testing.T) {
	t.Parallel()
	for _, k := range []agent.VerdictKind{agent.VerdictAllow, agent.VerdictDeny, agent.VerdictAsk} {
		if k == 0 {
			t.Errorf("a verdict kind is the zero value")
		}
	}
	if (agent.Verdict{}).Kind == agent.VerdictAllow {
		t.Error("the zero Verdict allows")
	}
}
