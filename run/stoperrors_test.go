package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/sink"
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
	l := newLoop(loopConfig{MaxTurns: 1}, nil, judgeBy(nil, nil), func(Event) {})
	for name, tc := range tests {
		err := l.requestError(context.Background(), tc.err)
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Why != tc.why || err.Error() != tc.msg || exitCode(err) != exitProvider {
			t.Errorf("%s: %#v (%q, exit %d), want why %d, %q, exit 5", name, err, err, exitCode(err), tc.why, tc.msg)
		}
		if got := retryableAfterPrint(tc.err); got != tc.retry {
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
	l := newLoop(loopConfig{MaxTurns: 1}, nil, judgeBy(nil, nil), func(ev Event) {
		if ev.Kind == EventLimit {
			limits = append(limits, ev.Text)
		}
	})
	tests := []struct {
		err  error
		code int
		msg  string
	}{
		{l.limit(agent.LimitMaxTurns, "reached --max-turns %d before the model finished", 2), exitLimit, "reached --max-turns 2 before the model finished"},
		{l.policyStop(agent.StopMaxDenials, "the policy refused %d calls (max_denials %d)", 3, 3), exitPolicy, "the policy refused 3 calls (max_denials 3)"},
		{l.budgetStop(&budgetError{Limit: "max_cost", Spent: 2, Max: 1}), exitLimit, "passed --max-cost $1.00: spent $2.00"},
	}
	for i, tc := range tests {
		if !agent.Announced(tc.err) || exitCode(tc.err) != tc.code || tc.err.Error() != tc.msg {
			t.Errorf("%d: %#v: announced %v, exit %d, want exit %d, %q", i, tc.err, agent.Announced(tc.err), exitCode(tc.err), tc.code, tc.msg)
		}
		if i >= len(limits) || limits[i] != tc.msg {
			t.Errorf("%d: EventLimit %q, want %q", i, limits, tc.msg)
		}
	}
}

// TestFinishRunAnnounced: finishRun reports (EventError) an error that
// ended the run unless the engine announced it (a limit, stop or check:
// its EventLimit line is the report), and always returns it as reported,
// with its exit code, so Main prints nothing more.
func TestFinishRunAnnounced(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err    error
		report bool
		code   int
	}{
		"max turns":   {&agent.LimitError{Kind: agent.LimitMaxTurns, Err: errors.New("reached --max-turns 1")}, false, exitLimit},
		"budget":      {&agent.LimitError{Kind: agent.LimitBudget, Err: &budgetError{Limit: "max_cost", Max: 1}}, false, exitLimit},
		"max denials": {&agent.StopError{Kind: agent.StopMaxDenials, Msg: "refused"}, false, exitPolicy},
		"deferred":    {&agent.StopError{Kind: agent.StopDeferred, Msg: "paused"}, false, exitPolicy},
		"verify":      {&agent.CheckError{Check: "verify", Err: agent.ErrVerifyFailed}, false, exitVerify},
		"provider":    {&agent.ProviderError{Err: errors.New("500")}, true, exitProvider},
		"tool":        {&agent.ToolError{Tool: "bash", Err: errors.New("boom")}, true, exitFailure},
	}
	for name, tc := range tests {
		var errs []error
		var sum *Summary
		l := newLoop(loopConfig{MaxTurns: 1}, nil, judgeBy(nil, nil), func(Event) {})
		err := finishRun(tc.err, l, sink.NewText(io.Discard, sink.TextOptions{Final: false}), time.Now(), func(ev Event) {
			switch ev.Kind {
			case EventError:
				errs = append(errs, ev.Err)
			case EventTurnDone:
				sum = ev.Summary
			}
		}, runEnd{})
		if got := len(errs) > 0; got != tc.report {
			t.Errorf("%s: reported %v (%v), want %v", name, got, errs, tc.report)
		}
		var rep reportedError
		if !errors.As(err, &rep) || exitCode(err) != tc.code || sum == nil || sum.ExitCode != tc.code {
			t.Errorf("%s: returned %#v (exit %d, summary %+v), want reported, exit %d", name, err, exitCode(err), sum, tc.code)
		}
	}
}
