package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/toolkit"
)

// The tests of this file kill the survivors of issue 31's mutation sample
// over the engine; each names the mutant it pins.

// wrappedPermanent is a Permanent error around a cause a retry would cure.
type wrappedPermanent struct{ error }

func (p wrappedPermanent) Permanent() bool { return true }
func (p wrappedPermanent) Unwrap() error   { return p.error }

// TestRetryableAfterPrintPermanentWins: a Permanent error is never retried,
// even when what it wraps is retryable (mutant: the Permanent check
// dropped from retryableAfterPrint).
func TestRetryableAfterPrintPermanentWins(t *testing.T) {
	t.Parallel()
	server := &llm.APIError{Kind: llm.KindServer, StatusCode: 500, Message: "boom", Retryable: true}
	partial := &llm.APIError{Kind: llm.KindServer, Message: "cut", Retryable: true, Partial: true}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"retryable", server, true},
		{"partial", partial, true},
		{"permanent around retryable", wrappedPermanent{server}, false},
		{"permanent around partial", fmt.Errorf("replay: %w", wrappedPermanent{partial}), false},
	} {
		if got := agent.RetryableAfterPrint(tc.err); got != tc.want {
			t.Errorf("%s: retryable %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestApprovalDenyStandsForEveryVerdict: --deny-pending denies the call
// whatever the policy says of it now, an allow included (mutant: only an
// "ask" turned into the person's denial).
func TestApprovalDenyStandsForEveryVerdict(t *testing.T) {
	t.Parallel()
	deny := agent.Approval{Approve: false}
	for _, tc := range []struct {
		name string
		v    agent.Verdict
		rule string
	}{
		{"ask", agent.Verdict{Kind: agent.VerdictAsk, Rule: "r", Fact: "f"}, "--deny-pending"},
		{"allow", agent.Verdict{Kind: agent.VerdictAllow, Rule: "r", Fact: "f"}, "--deny-pending"},
		{"deny stands as it is", agent.Verdict{Kind: agent.VerdictDeny, Rule: "r", Fact: "f"}, "r"},
	} {
		got := deny.Apply(tc.v, nil)
		if got.Kind != agent.VerdictDeny || got.Rule != tc.rule {
			t.Errorf("%s: %+v, want a denial by rule %s", tc.name, got, tc.rule)
		}
	}
}

// TestResumeStoppedBeforeOpenCalls: a resumed run whose context already
// ended answers each open call with a "not run" result, runs none, and
// does not add the new prompt (mutants: no stop check before a call;
// the prompt added although the run stopped).
func TestResumeStoppedBeforeOpenCalls(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		prompt string
		open   int
	}{
		{"one call, no prompt", "", 1},
		{"two calls and a prompt", "go on", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tool := &agenttest.FakeTool{Name: "read", Kind: toolkit.EffectRead}
			l := agent.New(nil, agent.Options{Tools: []toolkit.Tool{tool}, Limits: agent.Limits{MaxTurns: 1},
				Judge: agenttest.JudgeBy(nil, nil), Emit: func(agent.Event) {}})
			var open []llm.Block
			for i := range tc.open {
				open = append(open, llm.ToolUseBlock(fmt.Sprintf("c%d", i), "read", json.RawMessage(`{}`)))
			}
			history := []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("do it")}}, {Role: llm.RoleAssistant, Content: open}}
			err := l.Resume(ctx, history, open, tc.prompt)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err %v, want the cancellation", err)
			}
			if ran := tool.RanWith(); len(ran) != 0 {
				t.Errorf("the tool ran %q after the run stopped", ran)
			}
			msgs := l.Messages()
			last := msgs[len(msgs)-1]
			if last.Role != llm.RoleUser || len(last.Content) != tc.open {
				t.Fatalf("last message %+v, want %d results and nothing else", last, tc.open)
			}
			for i, b := range last.Content {
				if b.Kind != llm.BlockToolResult || b.ToolUseID != open[i].ID || !b.IsError || !strings.HasPrefix(b.Content, "Not run: the run stopped") {
					t.Errorf("block %d: %+v, want a not-run result for %s", i, b, open[i].ID)
				}
			}
		})
	}
}

// TestBudgetStopsACutAnswer: an answer cut at the output limit that
// passes the budget ends the run there with the spent (not projected)
// total, without asking the model to continue (mutant: only a turn with
// tool calls checked after the request).
func TestBudgetStopsACutAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		stop     string
		wantStop bool
	}{
		{"cut answer over the cap", "max_tokens", true},
		{"final answer over the cap finishes", "end_turn", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := agent.NewBudget(agent.BudgetLimits{MaxTokens: 500}, "test-model", nil)
			if err != nil {
				t.Fatal(err)
			}
			r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
				{Text: []string{"The first half"}, Stop: tc.stop, Usage: llmtest.Usage{InputTokens: 400, OutputTokens: 200}},
				{Text: []string{"and the rest."}},
			}}, agent.Options{Budget: b})
			if len(r.Requests) != 1 {
				t.Errorf("%d requests, want 1", len(r.Requests))
			}
			if n := len(r.Kinds(agent.EventNotice)); n != 0 {
				t.Errorf("%d notices, want none: %+v", n, r.Kinds(agent.EventNotice))
			}
			var be *agent.BudgetError
			if !tc.wantStop {
				if r.Err != nil {
					t.Errorf("err %v, want the run to finish", r.Err)
				}
				return
			}
			if !errors.As(r.Err, &be) || be.Limit != "max_tokens_total" || be.Projected != 0 {
				t.Errorf("err %#v, want max_tokens_total spent, not projected", r.Err)
			}
		})
	}
}

// TestDeferralLeavesTheRestPending: once a call is deferred, every later
// call of the same message that needs approval is pending too, and none of
// them runs (mutant: the calls after the deferred one not judged).
func TestDeferralLeavesTheRestPending(t *testing.T) {
	t.Parallel()
	judge := func(tool string, _ toolkit.Effects) agent.Verdict {
		if tool == "write" {
			return agent.Verdict{Kind: agent.VerdictAsk, Rule: "tools.write", Fact: "write"}
		}
		return agent.Verdict{Kind: agent.VerdictAllow, Rule: "all"}
	}
	for _, tc := range []struct {
		name  string
		calls []llmtest.ToolCall
		want  []string
	}{
		{"one call", []llmtest.ToolCall{agenttest.Call("c1", "write", `{}`)}, []string{"c1"}},
		{"later asks pending, allowed and unknown skipped", []llmtest.ToolCall{
			agenttest.Call("c1", "write", `{}`), agenttest.Call("c2", "read", `{}`),
			agenttest.Call("c3", "write", `{}`), agenttest.Call("c4", "nosuch", `{}`),
		}, []string{"c1", "c3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			write := &agenttest.FakeTool{Name: "write", Kind: toolkit.EffectWrite}
			read := &agenttest.FakeTool{Name: "read", Kind: toolkit.EffectRead}
			r := agenttest.Run(t, context.Background(), llmtest.Script{Turns: []llmtest.Turn{
				{ToolCalls: tc.calls}, {Text: []string{"done"}},
			}}, agent.Options{Judge: judge, OnAsk: agent.OnAsk{Mode: agent.AskDefer, Why: "--on-ask is defer"}}, write, read)
			var stop *agent.StopError
			if !errors.As(r.Err, &stop) || stop.Kind != agent.StopDeferred {
				t.Fatalf("err %v, want deferred", r.Err)
			}
			var ids []string
			for _, p := range r.Agent.Pending() {
				ids = append(ids, p.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tc.want, ",") {
				t.Errorf("pending %v, want %v", ids, tc.want)
			}
			if ran := append(write.RanWith(), read.RanWith()...); len(ran) != 0 {
				t.Errorf("ran %q, want nothing run", ran)
			}
		})
	}
}
