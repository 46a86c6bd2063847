package agent_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/toolkit"
)

// recordingAsker records the verdicts it is asked about and answers with
// its own.
type recordingAsker struct {
	asked  []agent.Verdict
	answer agent.Verdict
}

func (a *recordingAsker) Ask(_ context.Context, _ llm.Block, _ toolkit.Effects, v agent.Verdict) agent.Verdict {
	a.asked = append(a.asked, v)
	return a.answer
}

// judgeRecord stands for the judge's own record of a decision (the
// harness's policy result).
type judgeRecord struct {
	Rule  string
	Facts []string
}

// TestVerdictThroughTheSeam: the judge's verdict reaches the Asker
// unchanged, its own record riding in Detail (a person's "always" answer
// records it), and the Asker's verdict is the one acted on.
func TestVerdictThroughTheSeam(t *testing.T) {
	t.Parallel()
	judged := agent.Verdict{Kind: agent.VerdictAsk, Rule: "tools.write", Fact: "write: a.txt", Reason: "writes", Message: "m",
		Allow: []string{"write:a.txt"}, Detail: judgeRecord{Rule: "tools.write", Facts: []string{"write: a.txt"}}}
	for name, tc := range map[string]struct {
		answer agent.Verdict
		ran    int
	}{
		"allowed": {agent.Verdict{Kind: agent.VerdictAllow, Rule: "terminal", Fact: "x", Reason: "you said yes"}, 1},
		"denied":  {agent.Verdict{Kind: agent.VerdictDeny, Rule: "terminal", Message: "no"}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			write := &agenttest.FakeTool{Name: "write", Kind: toolkit.EffectWrite}
			asker := &recordingAsker{answer: tc.answer}
			r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
				{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "write", `{"path":"a.txt"}`)}},
				{Text: []string{"done"}},
			}}, agent.Options{Ask: asker, Judge: func(string, toolkit.Effects) agent.Verdict { return judged }}, write)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if len(asker.asked) != 1 || !reflect.DeepEqual(asker.asked[0], judged) {
				t.Errorf("the Asker got %+v, want %+v", asker.asked, judged)
			}
			if got := len(write.RanWith()); got != tc.ran {
				t.Errorf("the tool ran %d times, want %d", got, tc.ran)
			}
		})
	}
}

// TestAskedFactsSeam: a deferred call records the facts
// Options.AskedFacts finds in the judge's record, and an approval covers
// the call only when it approved each of them.
func TestAskedFactsSeam(t *testing.T) {
	t.Parallel()
	facts := []agent.PendingFact{{Fact: "write: a.txt", Rule: "tools.write"}, {Fact: "command: rm b", Rule: "tools.shell"}}
	judged := agent.Verdict{Kind: agent.VerdictAsk, Rule: "tools.write", Fact: "write: a.txt", Detail: judgeRecord{Rule: "tools.write"}}
	asked := func(v agent.Verdict) []agent.PendingFact {
		if _, ok := v.Detail.(judgeRecord); !ok {
			return nil
		}
		return facts
	}
	script := func() llmtest.Script {
		return llmtest.Script{Turns: []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{agenttest.Call("c1", "write", `{"path":"a.txt"}`)}},
			{Text: []string{"done"}},
		}}
	}
	judge := func(string, toolkit.Effects) agent.Verdict { return judged }
	write := &agenttest.FakeTool{Name: "write", Kind: toolkit.EffectWrite}
	r := agenttest.Run(t, context.Background(), script(), agent.Options{Judge: judge, AskedFacts: asked,
		OnAsk: agent.OnAsk{Mode: agent.AskDefer, Why: "--on-ask is defer"}}, write)
	var stop *agent.StopError
	if !errors.As(r.Err, &stop) || stop.Kind != agent.StopDeferred {
		t.Fatalf("err %v, want deferred", r.Err)
	}
	if p := r.Agent.Pending(); len(p) != 1 || !reflect.DeepEqual(p[0].Facts, facts) {
		t.Errorf("pending %+v, want the facts %v", p, facts)
	}
	for name, tc := range map[string]struct {
		approved []agent.PendingFact
		ran      int
	}{
		"every fact approved": {facts, 1},
		"one fact approved":   {facts[:1], 0},
	} {
		write := &agenttest.FakeTool{Name: "write", Kind: toolkit.EffectWrite}
		r := agenttest.Run(t, context.Background(), script(), agent.Options{Judge: judge, AskedFacts: asked,
			Answers: map[string]agent.Approval{"c1": {Approve: true, Facts: tc.approved}}}, write)
		if got := len(write.RanWith()); got != tc.ran || r.Err != nil {
			t.Errorf("%s: ran %d times (err %v), want %d", name, got, r.Err, tc.ran)
		}
	}
}
