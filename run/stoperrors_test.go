package run

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
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
		l := newLoop(loopConfig{MaxTurns: 1}, nil, agenttest.JudgeBy(nil, nil), func(Event) {})
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
