package run

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
)

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
		"max turns":   {&agent.LimitError{Kind: agent.LimitMaxTurns, Err: errors.New("reached --max-turns 1")}, false, exit.Limit},
		"budget":      {&agent.LimitError{Kind: agent.LimitBudget, Err: &agent.BudgetError{Limit: "max_cost", Max: 1}}, false, exit.Limit},
		"max denials": {&agent.StopError{Kind: agent.StopMaxDenials, Msg: "refused"}, false, exit.Policy},
		"deferred":    {&agent.StopError{Kind: agent.StopDeferred, Msg: "paused"}, false, exit.Policy},
		"verify":      {&agent.CheckError{Check: "verify", Err: agent.ErrVerifyFailed}, false, exit.Verify},
		"provider":    {&agent.ProviderError{Err: errors.New("500")}, true, exit.Provider},
		"tool":        {&agent.ToolError{Tool: "bash", Err: errors.New("boom")}, true, exit.Failure},
	}
	for name, tc := range tests {
		var errs []error
		var sum *agent.Summary
		l := agent.New(nil, agent.Options{Limits: agent.Limits{MaxTurns: 1}, Judge: agenttest.JudgeBy(nil, nil), Emit: func(agent.Event) {}})
		err := harness.Finish(tc.err, l, sink.NewText(io.Discard, sink.TextOptions{Final: false}), time.Now(), func(ev agent.Event) {
			switch ev.Kind {
			case agent.EventError:
				errs = append(errs, ev.Err)
			case agent.EventTurnDone:
				sum = ev.Summary
			}
		}, harness.RunEnd{})
		if got := len(errs) > 0; got != tc.report {
			t.Errorf("%s: reported %v (%v), want %v", name, got, errs, tc.report)
		}
		var rep exit.Reported
		if !errors.As(err, &rep) || exit.Code(err) != tc.code || sum == nil || sum.ExitCode != tc.code {
			t.Errorf("%s: returned %#v (exit %d, summary %+v), want reported, exit %d", name, err, exit.Code(err), sum, tc.code)
		}
	}
}
