package linemode

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/internal/ptytest"
	"github.com/rubichan/rubichan/toolkit"
)

// TestTerminalOutputShowsControls: every place line mode writes model,
// file, tool or server text for a person writes its control characters
// visibly (see [agent.Shown]), whatever field the text comes in (run's
// test of the same name covers the sinks and the commands).
func TestTerminalOutputShowsControls(t *testing.T) {
	t.Parallel()
	h := ptytest.Hostile
	tests := map[string]func(*testing.T) string{
		"line mode: approval": func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "new.txt")
			in, _ := json.Marshal(map[string]string{"path": path, "content": h + "\n"})
			eff := toolkit.Effects{Kind: toolkit.EffectWrite, Paths: []toolkit.PathRef{{Requested: path}}, Summary: h}
			return askedOnce(t, llm.Block{Name: "write", Input: in}, eff, agent.Verdict{Kind: agent.VerdictAsk, Rule: h, Fact: h, Reason: h})
		},
		"line mode: tool name": func(t *testing.T) string {
			return askedOnce(t, llm.Block{Name: h}, toolkit.Effects{Summary: "s"}, agent.Verdict{Kind: agent.VerdictAsk, Rule: "r", Fact: "f"})
		},
		"line mode: note": func(*testing.T) string {
			var b bytes.Buffer
			(&chat{stderr: &b}).note("tools: %s", h)
			return b.String()
		},
		"line mode: /diff": func(*testing.T) string {
			var b bytes.Buffer
			(&chat{stderr: &b, edits: &editLog{list: []fileEdit{{files: []string{h}, diff: "+" + h + "\n"}}}}).diff()
			return b.String()
		},
	}
	for name, render := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := render(t)
			if problem := ptytest.EscapedOK(out); problem != "" {
				t.Errorf("output %s:\n%s", problem, ptytest.JSONQuote(out))
			}
		})
	}
}
