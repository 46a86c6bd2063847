package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/toolkit"
)

// Verifier runs the --verify command the way the bash tool runs the
// model's commands (own process group, no stdin, the scrubbed environment,
// the run's TMPDIR and sandbox, head and tail of the output) but outside
// the policy: it is the user's command.
type Verifier struct {
	command  string
	attempts int
	bash     *toolkit.Bash
	now      func() time.Time
	emit     func(agent.Event)
	passed   bool // a check passed in the current run
}

// NewVerifier returns the verifier of v in the workspace root dir, or nil
// when no check was asked. The command runs in the environment ce, with
// the run's temporary directory, reaper and sandbox, as the bash tool's
// commands do; its events go to emit.
func NewVerifier(v config.Verify, ce ChildEnv, dir string, rt Tools, emit func(agent.Event)) *Verifier {
	if v.Command == "" {
		return nil
	}
	return &Verifier{
		command:  v.Command,
		attempts: max(v.Attempts, 1),
		bash: toolkit.NewBash(toolkit.BashConfig{
			Dir: dir, Env: ce.Environ, EnvAllow: ce.EnvAllow, DropEnv: ce.DropEnv, PathAdd: ce.PathAdd,
			DefaultTimeout: v.Timeout, MaxTimeout: v.Timeout,
			TempDir: rt.TempDir, Reaper: rt.Reaper, Confine: rt.Box, CallEnv: ce.CallEnv,
		}),
		now:  time.Now,
		emit: emit,
	}
}

// check runs the command once; a Go error means it could not be run.
func (v *Verifier) check(ctx context.Context, attempt int) (*agent.VerifyInfo, error) {
	args, _ := json.Marshal(map[string]string{"command": v.command})
	start := v.now()
	res, err := v.bash.Run(ctx, args)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return &agent.VerifyInfo{
		Command: v.command, Attempt: attempt, Max: v.attempts,
		Passed: !res.IsError, ExitCode: res.Meta.ExitCode,
		Duration: v.now().Sub(start), Output: res.Content,
	}, nil
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// verifyMessage is what the model is told after a failed check.
func verifyMessage(info *agent.VerifyInfo) string {
	left := info.Max - info.Attempt
	return fmt.Sprintf("The verification command `%s` failed (attempt %d of %d; %d left). "+
		"The task is done only when it passes. Its output:\n<verify_output>\n%s\n</verify_output>\n"+
		"Fix the problem, then answer again when you are done.",
		info.Command, info.Attempt, info.Max, left, info.Output)
}

// Verify runs the check after the model's final answer (it implements
// [agent.Verifier]), reporting it as [EventVerifyStart] and [EventVerify].
// A failed check gives the model its output while attempts are left;
// the last failed one ends the run with exit 6.
func (v *Verifier) Verify(ctx context.Context, attempt int, _ agent.Final) (agent.Verification, error) {
	v.emit(agent.Event{Kind: agent.EventVerifyStart, Verify: &agent.VerifyInfo{Command: v.command, Attempt: attempt, Max: v.attempts}})
	info, err := v.check(ctx, attempt)
	if err != nil {
		return agent.Verification{}, err
	}
	v.emit(agent.Event{Kind: agent.EventVerify, Verify: info})
	if ctx.Err() != nil {
		// The loop ends the run with the context's cause.
		return agent.Verification{}, nil
	}
	if info.Passed {
		v.passed = true
		return agent.Verification{Passed: true}, nil
	}
	if attempt >= v.attempts {
		detail := fmt.Sprintf("`%s` did not pass in %d attempt%s", v.command, v.attempts, plural(v.attempts))
		return agent.Verification{Stop: &agent.CheckError{Check: "verify", Err: fmt.Errorf("%w: %s", agent.ErrVerifyFailed, detail)}}, nil
	}
	return agent.Verification{Feedback: verifyMessage(info)}, nil
}

// Outcome is the last run's --verify result for its summary, and starts
// the next run's: nil without --verify; false when the run ended before
// a check passed.
func (v *Verifier) Outcome() *bool {
	if v == nil {
		return nil
	}
	ok := v.passed
	v.passed = false
	return &ok
}

// Verifiers is v as the loop's final-answer checks: none without --verify.
func (v *Verifier) Verifiers() []agent.Verifier {
	if v == nil {
		return nil
	}
	return []agent.Verifier{v}
}
