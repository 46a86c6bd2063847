package harness

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/toolkit"
)

// testVerifier is --verify with command, its events kept.
func testVerifier(t *testing.T, command string, attempts int) (*Verifier, *[]agent.Event) {
	t.Helper()
	evs := &[]agent.Event{}
	return &Verifier{
		command: command, attempts: attempts, now: time.Now,
		bash: toolkit.NewBash(toolkit.BashConfig{Dir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")},
			DefaultTimeout: time.Minute, MaxTimeout: time.Minute}),
		emit: func(ev agent.Event) { *evs = append(*evs, ev) },
	}, evs
}

// TestVerifierChecks: the --verify verifier as the loop calls it, one
// check at a time: it reports each check, gives the model the output
// while attempts are left, and gives up with exit 6 on the last one.
func TestVerifierChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		command  string
		attempt  int
		passed   bool
		feedback bool
		stop     string
	}{
		{name: "passes", command: "true", attempt: 1, passed: true},
		{name: "fails, attempts left", command: "false", attempt: 1, feedback: true},
		{name: "fails the last time", command: "false", attempt: 2, stop: "verification failed: `false` did not pass in 2 attempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, evs := testVerifier(t, tt.command, 2)
			res, err := v.Verify(context.Background(), tt.attempt, agent.Final{Text: "done"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != tt.passed || (res.Feedback != "") != tt.feedback {
				t.Errorf("verification %+v", res)
			}
			if len(*evs) != 2 || (*evs)[0].Kind != agent.EventVerifyStart || (*evs)[1].Kind != agent.EventVerify {
				t.Fatalf("events %v", *evs)
			}
			if info := (*evs)[1].Verify; info.Attempt != tt.attempt || info.Max != 2 || info.Passed != tt.passed {
				t.Errorf("verify event %+v", info)
			}
			if tt.feedback && res.Feedback != verifyMessage((*evs)[1].Verify) {
				t.Errorf("feedback %q", res.Feedback)
			}
			var ce *agent.CheckError
			switch {
			case tt.stop == "" && res.Stop != nil:
				t.Errorf("stop %v", res.Stop)
			case tt.stop != "" && (res.Stop == nil || res.Stop.Error() != tt.stop || !errors.As(res.Stop, &ce) ||
				ce.Check != "verify" || !errors.Is(res.Stop, agent.ErrVerifyFailed) || exit.Code(res.Stop) != exit.Verify):
				t.Errorf("stop %#v, want exit 6: %s", res.Stop, tt.stop)
			case tt.stop != "":
				if kind, _, _ := exit.EngineKind(res.Stop); kind != events.ErrVerifyFailed {
					t.Errorf("stop kind %q, want %q", kind, events.ErrVerifyFailed)
				}
			}
		})
	}
}

// TestVerifierOutcome: the summary's "verified" of each run: nil without
// --verify, false until a check passed in the run, and each run starts
// unverified.
func TestVerifierOutcome(t *testing.T) {
	t.Parallel()
	var none *Verifier
	if none.Outcome() != nil || none.Verifiers() != nil {
		t.Error("no --verify: an outcome or verifiers")
	}
	v, _ := testVerifier(t, "true", 1)
	if got := v.Outcome(); got == nil || *got {
		t.Errorf("a run without a check: %v, want false", got)
	}
	if _, err := v.Verify(context.Background(), 1, agent.Final{}); err != nil {
		t.Fatal(err)
	}
	if got := v.Outcome(); got == nil || !*got {
		t.Errorf("a run whose check passed: %v, want true", got)
	}
	if got := v.Outcome(); got == nil || *got {
		t.Errorf("the next run: %v, want false", got)
	}
}

func TestVerifyMessage(t *testing.T) {
	t.Parallel()
	code := 1
	msg := verifyMessage(&agent.VerifyInfo{Command: "go test ./...", Attempt: 1, Max: 3, ExitCode: &code, Output: "FAIL x\n[exit code 1]"})
	for _, want := range []string{"`go test ./...` failed (attempt 1 of 3; 2 left)", "<verify_output>\nFAIL x\n[exit code 1]\n</verify_output>"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}
