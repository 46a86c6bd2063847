package linemode

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit"
)

// TestApprovalTextIsWhole: every place that shows a person what they
// approve shows all of it — the deferred run's pending list (one fact or
// several), `sessions show` (the same writer) and line mode's question —
// however long the command: a part cut off, or a line break flattened to
// a space so that a second command reads as words of the first, would be
// approved unseen.
func TestApprovalTextIsWhole(t *testing.T) {
	t.Parallel()
	long := "bash -c 'echo " + strings.Repeat("a", 400) + "\nrm -f victim.txt'"
	want := "echo " + strings.Repeat("a", 400) + `\nrm -f victim.txt'`
	ask := func(t *testing.T, v agent.Verdict) string {
		return askedOnce(t, llm.Block{Name: "bash"}, toolkit.Effects{Kind: toolkit.EffectExecute, Command: long, Summary: long}, v)
	}
	tests := map[string]func(*testing.T) string{
		"pending list: one fact": func(*testing.T) string {
			var b bytes.Buffer
			sink.ReportPending(&b, []session.Pending{{ID: "c", Tool: "bash", Fact: long, Rule: "r"}}, "", "", nil)
			return b.String()
		},
		"pending list: facts": func(*testing.T) string {
			var b bytes.Buffer
			facts := []session.PendingFact{{Fact: "write: x", Rule: "r"}, {Fact: "command: " + long, Rule: "r"}}
			sink.ReportPending(&b, []session.Pending{{ID: "c", Tool: "bash", Fact: "write: x", Rule: "r", Facts: facts}}, "", "", nil)
			return b.String()
		},
		"line mode: question": func(t *testing.T) string {
			return ask(t, agent.Verdict{Kind: agent.VerdictAsk, Rule: "r", Fact: long})
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := tc(t)
			if !strings.Contains(out, want) {
				t.Errorf("the text to approve is not shown whole:\n%s", out)
			}
		})
	}
}

// askedOnce puts call to line mode's asker, answers "n", and returns what
// the asker wrote for the person.
func askedOnce(t *testing.T, call llm.Block, eff toolkit.Effects, v agent.Verdict) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteString("n\n")
	var b bytes.Buffer
	a := newTTYAsker(r, &b, &harness.Approver{}, false)
	defer a.close()
	a.ask(context.Background(), call, eff, v)
	return b.String()
}
