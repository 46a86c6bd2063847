package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/run/events/eventstest"
	"github.com/rubichan/rubichan/run/exit"
)

// testSummary is the summary the scripted model writes.
const testSummary = "Task: do the task. Decisions: none. Files: none. Commands: step 1 to step N. Left to do: the rest of the steps."

// catScript is n turns that each cat big.txt, then a final answer.
func catScript(n, window int) llmtest.Script {
	s := llmtest.Script{ContextWindow: window, Summary: &llmtest.Turn{Text: []string{testSummary}, Usage: llmtest.Usage{OutputTokens: 40}}}
	for i := 1; i <= n; i++ {
		s.Turns = append(s.Turns, llmtest.Turn{ToolCalls: []llmtest.ToolCall{agenttest.Call(fmt.Sprintf("c%d", i), "bash", `{"command":"cat big.txt"}`)}})
	}
	s.Turns = append(s.Turns, llmtest.Turn{Text: []string{"done"}})
	return s
}

// compactCLI runs exec in stream-json mode for model tiny, whose window
// a config file sets to 8,000 tokens, against a server that rejects
// requests over 8,000 tokens.
func compactCLI(t *testing.T, extra ...string) (int, []byte, string, string) {
	t.Helper()
	srv := llmtest.NewServer(catScript(40, 8000))
	t.Cleanup(srv.Close)
	ws, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("a line of the big file\n", 40)), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(conf, []byte("[models.\"tiny\"]\ncontext_window = 8000\nmax_output = 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test-key-123", "ANTHROPIC_BASE_URL": srv.URL(), "XDG_STATE_HOME": state})
	env.Environ = func() []string { return []string{"PATH=/usr/bin:/bin"} }
	args := append([]string{"rubichan", "exec", "--output", "stream-json", "-C", ws, "--config", conf, "--model", "tiny",
		"--max-turns", "41", "--allow", "shell:cat *"}, extra...)
	var out, errOut bytes.Buffer
	code := runMain(context.Background(), append(args, "read big.txt forty times"), nil, &out, &errOut, env)
	sessions, _ := filepath.Glob(filepath.Join(state, "rubichan", "sessions", "*.jsonl"))
	var session string
	if len(sessions) == 1 {
		data, _ := os.ReadFile(sessions[0])
		session = string(data)
	}
	return code, out.Bytes(), errOut.String(), session
}

func TestCompactionCLI(t *testing.T) {
	code, out, stderr, session := compactCLI(t)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var comps int
	for _, ev := range eventstest.StreamOf(t, out) { // validated against the schema
		if ev.Type() == "compaction" {
			comps++
			if ev["reason"] != "threshold" || ev["cost_usd"] != nil {
				t.Errorf("compaction event %v", ev)
			}
		}
	}
	if comps == 0 {
		t.Fatal("no compaction event")
	}
	if n := strings.Count(session, `"type":"compaction"`); n != comps || !strings.Contains(session, testSummary) {
		t.Errorf("%d compaction lines in the session for %d compactions", n, comps)
	}
	if strings.Contains(stderr, "context window of model") {
		t.Errorf("a configured model has an unknown window: %s", stderr)
	}
}

func TestNoCompactCLI(t *testing.T) {
	code, out, stderr, _ := compactCLI(t, "--no-compact")
	if code != exit.Provider || !strings.Contains(stderr, "no longer fits the model's context window") {
		t.Fatalf("exit %d, want 5\n%s", code, stderr)
	}
	evs := eventstest.StreamOf(t, out)
	if res := evs[len(evs)-1]; res["exit_code"] != float64(5) {
		t.Errorf("result %v", res)
	}
}

func TestCompactAtFlag(t *testing.T) {
	code, _, stderr, _ := compactCLI(t, "--compact-at", "1.5")
	if code != exit.Usage || !strings.Contains(stderr, "want a ratio above 0 and at most 1") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}
