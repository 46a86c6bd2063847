package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/toolkit"
)

const testSummary = "Task: do the task. Decisions: none. Files: none. Commands: step 1 to step N. Left to do: the rest of the steps."

// longScript is n turns that each run one bash step whose result is big,
// then a final answer; the server has a window of window tokens and a
// summary turn for the compaction requests.
func longScript(n, window int) llmtest.Script {
	s := llmtest.Script{ContextWindow: window, Summary: &llmtest.Turn{Text: []string{testSummary}, Usage: llmtest.Usage{OutputTokens: 40}}}
	for i := 1; i <= n; i++ {
		s.Turns = append(s.Turns, llmtest.Turn{
			Text:      []string{fmt.Sprintf("Running step %d.", i)},
			ToolCalls: []llmtest.ToolCall{agenttest.Call(fmt.Sprintf("c%d", i), "bash", fmt.Sprintf(`{"command":"step %d"}`, i))},
			Usage:     llmtest.Usage{OutputTokens: 20},
		})
	}
	s.Turns = append(s.Turns, llmtest.Turn{Text: []string{"All steps done."}, Usage: llmtest.Usage{OutputTokens: 5}})
	return s
}

// bigOutput is a bash tool whose every result is about 800 bytes.
func bigOutput() *agenttest.FakeTool {
	return &agenttest.FakeTool{Name: "bash", Kind: toolkit.EffectExecute, Result: func(args json.RawMessage) (toolkit.Result, error) {
		return toolkit.Result{Content: string(args) + "\n" + strings.Repeat("output line of the step\n", 33)}, nil
	}}
}

// isSummaryRequest reports whether a recorded request is a compaction's
// summary request: it offers no tools.
func isSummaryRequest(w agenttest.WireRequest) bool { return len(w.Tools) == 0 }

func TestCompactionLongRun(t *testing.T) {
	t.Parallel()
	const window, turns = 8000, 150
	r := runLoop(t, context.Background(), longScript(turns, window),
		agent.Options{Limits: agent.Limits{MaxTurns: turns + 1}, Compact: agent.Compact{Window: window, MaxOutput: 1000}}, nil, bigOutput())
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	if n := len(r.Kinds(agent.EventTurnStart)); n != turns+1 {
		t.Errorf("%d turns, want %d: compaction requests are no turns", n, turns+1)
	}
	comps := r.Kinds(agent.EventCompaction)
	if len(comps) < 5 {
		t.Fatalf("%d compactions, want several", len(comps))
	}
	maxTokens, summaries := 0, 0
	for i, req := range r.Raw {
		n := llmtest.RequestTokens(req.Body)
		maxTokens = max(maxTokens, n)
		if n > window {
			t.Errorf("request %d: %d tokens, over the window of %d", i+1, n, window)
		}
		w := r.Requests[i]
		if isSummaryRequest(w) {
			summaries++
			checkSummaryRequest(t, i+1, w)
			continue
		}
		if first := w.Messages[0]; first.Role != "user" || first.Content[0].Text != "do the task" {
			t.Errorf("request %d: first message %+v, want the task", i+1, first)
		}
	}
	if summaries != len(comps) {
		t.Errorf("%d summary requests for %d compactions", summaries, len(comps))
	}
	// The request after a compaction carries the summary, marked.
	for i := range r.Requests[:len(r.Requests)-1] {
		if isSummaryRequest(r.Requests[i]) {
			next := r.Requests[i+1]
			if got := next.Messages[1].Content[0].Text; got != session.SummaryPreface+testSummary {
				t.Errorf("request %d: second message %q, want the marked summary", i+2, got)
			}
			if next.Messages[2].Role != "assistant" {
				t.Errorf("request %d: the kept tail starts with a %s message", i+2, next.Messages[2].Role)
			}
		}
	}
	var before, after []int
	for _, c := range comps {
		info := c.Compaction
		before, after = append(before, info.TokensBefore), append(after, info.TokensAfter)
		if info.Reason != "threshold" || info.TurnsSummarised == 0 || info.TokensAfter >= info.TokensBefore ||
			info.Usage.OutputTokens != 40 {
			t.Errorf("compaction %+v", info)
		}
	}
	sum := r.Agent.Summary(time.Now())
	if sum.OutputTokens != int64(turns*20+5+40*len(comps)) {
		t.Errorf("output tokens %d: the summaries' tokens are not counted", sum.OutputTokens)
	}
	t.Logf("%d requests (%d summary requests), largest %d tokens of %d; estimates before compaction %v, after %v",
		len(r.Raw), summaries, maxTokens, window, before, after)
}

// checkSummaryRequest checks the content of a compaction's request.
func checkSummaryRequest(t *testing.T, n int, w agenttest.WireRequest) {
	t.Helper()
	var system string
	if err := json.Unmarshal(w.System, &system); err != nil {
		var blocks []agenttest.WireBlock
		if json.Unmarshal(w.System, &blocks) == nil && len(blocks) > 0 {
			system = blocks[0].Text
		}
	}
	if system != agent.CompactSystem {
		t.Errorf("summary request %d: system %q", n, system)
	}
	if len(w.Messages) != 1 || w.Messages[0].Role != "user" {
		t.Fatalf("summary request %d: %d messages", n, len(w.Messages))
	}
	text := w.Messages[0].Content[0].Text
	for _, want := range []string{"<task>\ndo the task\n</task>", "[tool call c", " bash]\n{\"command\":\"step ", "[tool result c", "output line of the step", "[assistant]\nRunning step"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary request %d lacks %q", n, want)
		}
	}
}

func TestCompactionOnContextLengthError(t *testing.T) {
	t.Parallel()
	// The loop believes the window is 20,000 tokens; the provider rejects
	// requests over 8,000.
	const turns = 60
	r := runLoop(t, context.Background(), longScript(turns, 8000),
		agent.Options{Limits: agent.Limits{MaxTurns: turns + 1}, Compact: agent.Compact{Window: 20000, MaxOutput: 1000}}, nil, bigOutput())
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	comps := r.Kinds(agent.EventCompaction)
	if len(comps) == 0 {
		t.Fatal("no compaction")
	}
	for _, c := range comps {
		if c.Compaction.Reason != "context_length" {
			t.Errorf("compaction %+v", c.Compaction)
		}
	}
	rejected := 0
	for _, req := range r.Raw {
		if llmtest.RequestTokens(req.Body) > 8000 {
			rejected++
		}
	}
	if rejected != len(comps) {
		t.Errorf("%d rejected requests, %d compactions", rejected, len(comps))
	}
}

func TestNoCompactExit5(t *testing.T) {
	t.Parallel()
	r := runLoop(t, context.Background(), longScript(60, 8000), agent.Options{Limits: agent.Limits{MaxTurns: 61}}, nil, bigOutput())
	if exit.Code(r.Err) != exit.Provider || !llm.IsContextLength(r.Err) ||
		!strings.Contains(r.Err.Error(), "no longer fits the model's context window") {
		t.Fatalf("err %v (exit %d), want exit 5 for the context window", r.Err, exit.Code(r.Err))
	}
	if n := len(r.Kinds(agent.EventCompaction)); n != 0 {
		t.Errorf("%d compactions without compaction", n)
	}
}

// TestCompactionBudget: the summary's tokens count against the caps, and
// a run whose summary passes the cap stops with exit 4.
func TestCompactionBudget(t *testing.T) {
	t.Parallel()
	s := longScript(40, 8000)
	s.Summary.Usage = llmtest.Usage{InputTokens: 100, OutputTokens: 1_000_000}
	b, err := agent.NewBudget(agent.BudgetLimits{MaxTokens: 900_000}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := runLoop(t, context.Background(), s, agent.Options{Limits: agent.Limits{MaxTurns: 41}, Budget: b, Compact: agent.Compact{Window: 8000, MaxOutput: 1000}}, nil, bigOutput())
	if exit.Code(r.Err) != exit.Limit || len(r.Kinds(agent.EventCompaction)) != 1 {
		t.Fatalf("err %v, %d compactions", r.Err, len(r.Kinds(agent.EventCompaction)))
	}
}

func TestCompactionEmptySummary(t *testing.T) {
	t.Parallel()
	s := longScript(40, 8000)
	s.Summary = &llmtest.Turn{Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 1}}
	r := runLoop(t, context.Background(), s, agent.Options{Limits: agent.Limits{MaxTurns: 41}, Compact: agent.Compact{Window: 8000, MaxOutput: 1000}}, nil, bigOutput())
	const want = "model request failed: compaction: the summary request came back empty"
	if exit.Code(r.Err) != exit.Provider || r.Err == nil || r.Err.Error() != want {
		t.Fatalf("err %v (exit %d), want exit 5 and %q", r.Err, exit.Code(r.Err), want)
	}
	summaries := 0
	for _, w := range r.Requests {
		if isSummaryRequest(w) {
			summaries++
		}
	}
	if summaries != 1 || len(r.Kinds(agent.EventRetry)) != 0 || len(r.Kinds(agent.EventCompaction)) != 0 {
		t.Errorf("%d summary requests, %d retries, %d compactions; want 1, 0, 0", summaries, len(r.Kinds(agent.EventRetry)), len(r.Kinds(agent.EventCompaction)))
	}
}
