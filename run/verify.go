package run

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/toolkit"
)

// verifier runs the --verify command the way the bash tool runs the
// model's commands (own process group, no stdin, the scrubbed environment,
// the run's TMPDIR and sandbox, head and tail of the output) but outside
// the policy: it is the user's command.
type verifier struct {
	command  string
	attempts int
	bash     *toolkit.Bash
	now      func() time.Time
}

// newVerifier returns the verifier of v in the workspace root dir, or nil
// when no check was asked. The command runs in the environment ce, with
// the run's temporary directory, reaper and sandbox, as the bash tool's
// commands do.
func newVerifier(v config.Verify, ce childEnv, dir string, rt runTools) *verifier {
	if v.Command == "" {
		return nil
	}
	return &verifier{
		command:  v.Command,
		attempts: max(v.Attempts, 1),
		bash: toolkit.NewBash(toolkit.BashConfig{
			Dir: dir, Env: ce.Environ, EnvAllow: ce.EnvAllow, DropEnv: ce.DropEnv, PathAdd: ce.PathAdd,
			DefaultTimeout: v.Timeout, MaxTimeout: v.Timeout,
			TempDir: rt.tempDir, Reaper: rt.reaper, Confine: rt.box,
		}),
		now: time.Now,
	}
}

// check runs the command once; a Go error means it could not be run.
func (v *verifier) check(ctx context.Context, attempt int) (*VerifyInfo, error) {
	args, _ := json.Marshal(map[string]string{"command": v.command})
	start := v.now()
	res, err := v.bash.Run(ctx, args)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return &VerifyInfo{
		Command: v.command, Attempt: attempt, Max: v.attempts,
		Passed: !res.IsError, ExitCode: res.Meta.ExitCode,
		Duration: v.now().Sub(start), Output: res.Content,
	}, nil
}

// verifyMessage is what the model is told after a failed check.
func verifyMessage(info *VerifyInfo) string {
	left := info.Max - info.Attempt
	return fmt.Sprintf("The verification command `%s` failed (attempt %d of %d; %d left). "+
		"The task is done only when it passes. Its output:\n<verify_output>\n%s\n</verify_output>\n"+
		"Fix the problem, then answer again when you are done.",
		info.Command, info.Attempt, info.Max, left, info.Output)
}

// runVerified runs the loop on the first message and then the check after
// each final answer, giving the model the failure and going on, until the
// check passes, its attempts are used up (exit 6) or the loop ends
// otherwise. verified is nil when no check was asked.
func runVerified(ctx context.Context, l *loop, v *verifier, history []llm.Message, open []llm.Block, first string, emit func(Event)) (verified *bool, err error) {
	err = l.resume(ctx, history, open, first)
	if v == nil {
		return nil, err
	}
	ok := false
	for attempt := 1; err == nil; attempt++ {
		emit(Event{Kind: EventVerifyStart, Verify: &VerifyInfo{Command: v.command, Attempt: attempt, Max: v.attempts}})
		info, cerr := v.check(ctx, attempt)
		if cerr != nil {
			return &ok, cerr
		}
		emit(Event{Kind: EventVerify, Verify: info})
		if ctx.Err() != nil {
			return &ok, l.contextError(ctx)
		}
		if info.Passed {
			ok = true
			return &ok, nil
		}
		if attempt >= v.attempts {
			detail := fmt.Sprintf("`%s` did not pass in %d attempts", v.command, v.attempts)
			emit(Event{Kind: EventLimit, Text: agent.ErrVerifyFailed.Error() + ": " + detail})
			return &ok, &agent.CheckError{Check: "verify", Err: fmt.Errorf("%w: %s", agent.ErrVerifyFailed, detail)}
		}
		err = l.continueWith(ctx, verifyMessage(info))
	}
	return &ok, err
}

// continueWith adds a user message to a finished conversation (recorded
// by the session like every message) and takes it on to the end, as
// [loop.run] does.
func (l *loop) continueWith(ctx context.Context, text string) error {
	l.addUser([]llm.Block{llm.TextBlock(text)})
	return l.turnLoop(ctx)
}
