package agent_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
)

// permanentErr is a Permanent error, as a replay's divergence is.
type permanentErr struct{ permanent bool }

func (e permanentErr) Error() string   { return "replay: request 2 differs from the cassette" }
func (e permanentErr) Permanent() bool { return e.permanent }

// TestStopErrorMessages pins the words of the errors a run ends with: the
// scripts and the JSON result show them byte for byte.
func TestStopErrorMessages(t *testing.T) {
	t.Parallel()
	api := &llm.APIError{Kind: llm.KindServer, StatusCode: 500, Message: "boom"}
	tests := map[string]struct {
		err  error
		want string
	}{
		"limit":         {&agent.LimitError{Kind: agent.LimitMaxTurns, Err: errors.New("reached --max-turns 2 before the model finished")}, "reached --max-turns 2 before the model finished"},
		"budget":        {&agent.LimitError{Kind: agent.LimitBudget, Err: &agent.QueriesError{Max: 3}}, "reached --max-queries 3: the run sent that many sub-queries"},
		"stdin timeout": {&agent.LimitError{Kind: agent.LimitTimeout, Err: agent.ErrTimeout}, "timeout"},
		"stop":          {&agent.StopError{Kind: agent.StopMaxDenials, Msg: "the policy refused 3 calls (max_denials 3)"}, "the policy refused 3 calls (max_denials 3)"},
		"provider":      {&agent.ProviderError{Err: api, Why: agent.ProviderFailed}, "model request failed: " + api.Error()},
		"context":       {&agent.ProviderError{Err: api, Why: agent.ProviderContextLength}, "the conversation no longer fits the model's context window: " + api.Error()},
		"permanent":     {&agent.ProviderError{Err: permanentErr{true}, Why: agent.ProviderPermanent}, "replay: request 2 differs from the cassette"},
		"tool":          {&agent.ToolError{Tool: "bash", Err: errors.New("sandbox: no such file")}, "tool bash: sandbox: no such file"},
		"check":         {&agent.CheckError{Check: "verify", Err: fmt.Errorf("%w: `make` did not pass in 2 attempts", agent.ErrVerifyFailed)}, "verification failed: `make` did not pass in 2 attempts"},
	}
	for name, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%s: Error() = %q\nwant %q", name, got, tc.want)
		}
	}
}

// TestStopErrorChains: the typed errors keep what they wrap reachable, so
// callers still find the provider's error, the budget's and the sentinels.
func TestStopErrorChains(t *testing.T) {
	t.Parallel()
	api := &llm.APIError{Kind: llm.KindContextLength, StatusCode: 400, Message: "prompt is too long"}
	var ae *llm.APIError
	if err := error(&agent.ProviderError{Err: api, Why: agent.ProviderContextLength}); !errors.As(err, &ae) || !llm.IsContextLength(err) {
		t.Errorf("a provider error hides its *llm.APIError: %v", err)
	}
	var be *agent.BudgetError
	if err := error(&agent.LimitError{Kind: agent.LimitBudget, Err: &agent.BudgetError{Limit: "max_cost", Max: 1}}); !errors.As(err, &be) {
		t.Errorf("a budget limit hides its *BudgetError: %v", err)
	}
	if !errors.Is(&agent.CheckError{Check: "verify", Err: fmt.Errorf("%w: x", agent.ErrVerifyFailed)}, agent.ErrVerifyFailed) {
		t.Error("a verify check error is not ErrVerifyFailed")
	}
	if !errors.Is(&agent.LimitError{Kind: agent.LimitTimeout, Err: agent.ErrTimeout}, agent.ErrTimeout) {
		t.Error("the stdin timeout is not ErrTimeout")
	}
	tool := errors.New("no such file")
	if err := error(&agent.ToolError{Tool: "bash", Err: tool}); !errors.Is(err, tool) {
		t.Error("a tool error hides its cause")
	}
	for kind, want := range map[agent.StopKind]bool{agent.StopDeferred: true, agent.StopPolicy: false, agent.StopMaxDenials: false} {
		err := fmt.Errorf("wrapped: %w", &agent.StopError{Kind: kind, Msg: "m"})
		if got := errors.Is(err, agent.ErrDeferred); got != want {
			t.Errorf("StopError %s: errors.Is(ErrDeferred) = %v, want %v", kind, got, want)
		}
	}
}

// TestAnnounced: the errors whose message the engine already emitted as
// EventLimit are announced; the others are the caller's to report.
func TestAnnounced(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		want bool
	}{
		"nil":               {nil, false},
		"plain":             {errors.New("x"), false},
		"limit":             {&agent.LimitError{Kind: agent.LimitMaxTurns, Err: errors.New("x")}, true},
		"budget":            {&agent.LimitError{Kind: agent.LimitBudget, Err: &agent.BudgetError{Limit: "max_cost", Max: 1}}, true},
		"stop":              {&agent.StopError{Kind: agent.StopPolicy, Msg: "x"}, true},
		"check":             {&agent.CheckError{Check: "verify", Err: agent.ErrVerifyFailed}, true},
		"wrapped":           {fmt.Errorf("run: %w", &agent.StopError{Kind: agent.StopDeferred, Msg: "x"}), true},
		"provider":          {&agent.ProviderError{Err: errors.New("x")}, false},
		"tool":              {&agent.ToolError{Tool: "t", Err: errors.New("x")}, false},
		"bare budget error": {&agent.BudgetError{Limit: "max_cost", Max: 1}, false},
	}
	for name, tc := range tests {
		if got := agent.Announced(tc.err); got != tc.want {
			t.Errorf("%s: Announced = %v, want %v", name, got, tc.want)
		}
	}
}

// TestPermanentCause finds a Permanent error that says it is one, wrapped
// or not.
func TestPermanentCause(t *testing.T) {
	t.Parallel()
	if got := agent.PermanentCause(fmt.Errorf("stream: %w", permanentErr{true})); got != (permanentErr{true}) {
		t.Errorf("PermanentCause = %v, want the divergence", got)
	}
	for _, err := range []error{nil, errors.New("x"), permanentErr{false}, &llm.APIError{Kind: llm.KindServer}} {
		if got := agent.PermanentCause(err); got != nil {
			t.Errorf("PermanentCause(%v) = %v, want nil", err, got)
		}
	}
}
