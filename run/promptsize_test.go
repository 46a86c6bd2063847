package run

import (
	"testing"
	"time"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/toolkit"
)

// promptBudget is the most the system prompt plus the tool specs may take:
// every byte is sent again on every turn.
const promptBudget = 6 << 10

// promptBytes measures what a run without context files sends before the
// conversation: the system prompt and every tool's name, description and
// schema.
func promptBytes(t testing.TB) (system, tools int) {
	t.Helper()
	dir := t.TempDir()
	ws, err := toolkit.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ap := newApprover(policy.Default().InWorkspace(ws.Root()), ws, "")
	cfg := execConfig{KeyVar: "ANTHROPIC_API_KEY"}
	env := environment{environ: func() []string { return []string{"PATH=/usr/bin:/bin"} }}
	// Measured as the loop sends them.
	l := newLoop(loopConfig{Tools: buildTools(ws, ap, cfg, env, nil)}, nil, nil, nil)
	for _, s := range l.specs {
		tools += len(s.Name) + len(s.Description) + len(s.Schema)
	}
	sys, err := systemPrompt(promptOptions{Root: ws.Root(), Now: time.Now(), NoContextFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(sys), tools
}

func TestPromptAndToolSpecsFitBudget(t *testing.T) {
	t.Parallel()
	system, tools := promptBytes(t)
	t.Logf("system prompt %d bytes + tool specs %d bytes = %d bytes (budget %d)", system, tools, system+tools, promptBudget)
	if system+tools > promptBudget {
		t.Errorf("system prompt (%d bytes) plus tool specs (%d bytes) = %d bytes, over the %d-byte budget",
			system, tools, system+tools, promptBudget)
	}
}

func BenchmarkPromptSize(b *testing.B) {
	system, tools := promptBytes(b)
	for b.Loop() {
	}
	b.ReportMetric(float64(system), "system-bytes")
	b.ReportMetric(float64(tools), "tool-spec-bytes")
	b.ReportMetric(float64(system+tools), "total-bytes")
}
