package agent_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/exit"
)

// TestRequestError: a failed model request ends the run with an
// *agent.ProviderError (exit 5) in today's words; a replay's divergence is
// Permanent (never retried) and keeps its own message.
func TestRequestError(t *testing.T) {
	t.Parallel()
	div := &cassette.DivergenceError{Request: 2, Path: "messages[1]", Recorded: `"a"`, Got: `"b"`}
	ctxLen := &llm.APIError{Kind: llm.KindContextLength, StatusCode: 400, Message: "prompt is too long"}
	server := &llm.APIError{Kind: llm.KindServer, StatusCode: 500, Message: "boom", Retryable: true}
	tests := map[string]struct {
		err   error
		why   agent.ProviderWhy
		msg   string
		retry bool
	}{
		"divergence":     {fmt.Errorf("anthropic: %w", div), agent.ProviderPermanent, div.Error(), false},
		"context length": {ctxLen, agent.ProviderContextLength, "the conversation no longer fits the model's context window: " + ctxLen.Error(), false},
		"server":         {server, agent.ProviderFailed, "model request failed: " + server.Error(), true},
	}
	l := agent.New(nil, agent.Options{Limits: agent.Limits{MaxTurns: 1}, Judge: agenttest.JudgeBy(nil, nil), Emit: func(agent.Event) {}})
	for name, tc := range tests {
		err := l.RequestError(context.Background(), tc.err)
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Why != tc.why || err.Error() != tc.msg || exit.Code(err) != exit.Provider {
			t.Errorf("%s: %#v (%q, exit %d), want why %d, %q, exit 5", name, err, err, exit.Code(err), tc.why, tc.msg)
		}
		if got := agent.RetryableAfterPrint(tc.err); got != tc.retry {
			t.Errorf("%s: retryable %v, want %v", name, got, tc.retry)
		}
	}
	var p agent.Permanent = div
	if !p.Permanent() {
		t.Error("a divergence is not permanent")
	}
}

// TestLoopStopErrors: the loop's limits and stops are the engine's typed
// errors, announced (EventLimit) with their message.
func TestLoopStopErrors(t *testing.T) {
	t.Parallel()
	var limits []string
	l := agent.New(nil, agent.Options{Limits: agent.Limits{MaxTurns: 1}, Judge: agenttest.JudgeBy(nil, nil), Emit: func(ev agent.Event) {
		if ev.Kind == agent.EventLimit {
			limits = append(limits, ev.Text)
		}
	}})
	tests := []struct {
		err  error
		code int
		msg  string
	}{
		{l.Limit(agent.LimitMaxTurns, "reached --max-turns %d before the model finished", 2), exit.Limit, "reached --max-turns 2 before the model finished"},
		{l.PolicyStop(agent.StopMaxDenials, "the policy refused %d calls (max_denials %d)", 3, 3), exit.Policy, "the policy refused 3 calls (max_denials 3)"},
		{l.BudgetStop(&agent.BudgetError{Limit: "max_cost", Spent: 2, Max: 1}), exit.Limit, "passed --max-cost $1.00: spent $2.00"},
	}
	for i, tc := range tests {
		if !agent.Announced(tc.err) || exit.Code(tc.err) != tc.code || tc.err.Error() != tc.msg {
			t.Errorf("%d: %#v: announced %v, exit %d, want exit %d, %q", i, tc.err, agent.Announced(tc.err), exit.Code(tc.err), tc.code, tc.msg)
		}
		if i >= len(limits) || limits[i] != tc.msg {
			t.Errorf("%d: EventLimit %q, want %q", i, limits, tc.msg)
		}
	}
}

// TestStopReasonSignal: a call not run because a signal ended the run
// says so in the signal's words.
func TestStopReasonSignal(t *testing.T) {
	t.Parallel()
	for sig, want := range map[syscall.Signal]string{
		syscall.SIGINT:  "interrupted by SIGINT",
		syscall.SIGTERM: "interrupted by SIGTERM",
		syscall.SIGHUP:  "interrupted by hangup",
	} {
		if got := agent.StopReason(exit.SignalError{Signal: sig}); got != want {
			t.Errorf("stopReason = %q, want %q", got, want)
		}
	}
}
