package exit_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
)

// TestCodes pins the values of DESIGN.md's exit table: scripts, CI jobs
// and the GitHub Action branch on them.
func TestCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, want int
	}{
		{"OK", exit.OK, 0},
		{"Failure", exit.Failure, 1},
		{"Usage", exit.Usage, 2},
		{"Policy", exit.Policy, 3},
		{"Limit", exit.Limit, 4},
		{"Provider", exit.Provider, 5},
		{"Verify", exit.Verify, 6},
		{"Schema", exit.Schema, 7},
		{"BrokenPipe", exit.BrokenPipe, 141},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("exit.%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

// TestCode reaches every code of DESIGN's table through Code, each bare
// and wrapped with %w (and inside Reported, which only says the message
// was shown), so no caller's wrapping can change how the process ends.
func TestCode(t *testing.T) {
	t.Parallel()
	epipe := exit.StdoutError{Err: &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}}
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"plain error", errors.New("boom"), 1},
		{"failure carried", exit.CodeError{Code: exit.Failure, Err: errors.New("tool bash: boom")}, 1},
		{"usage", exit.UsageError{Err: errors.New("bad flag")}, 2},
		{"usagef", exit.Usagef("bad %s", "flag"), 2},
		{"usage carried", exit.CodeError{Code: exit.Usage, Err: errors.New("sandbox unmet")}, 2},
		{"policy", exit.CodeError{Code: exit.Policy, Err: errors.New("max_denials (3) reached"), Kind: "max_denials"}, 3},
		{"limit", exit.CodeError{Code: exit.Limit, Err: errors.New("reached --max-turns 2"), Kind: "max_turns"}, 4},
		{"provider", exit.CodeError{Code: exit.Provider, Err: errors.New("model request failed: 500")}, 5},
		{"verify", exit.CodeError{Code: exit.Verify, Err: errors.New("verification failed")}, 6},
		{"schema", exit.CodeError{Code: exit.Schema, Err: errors.New("no match")}, 7},
		{"sigint carried", exit.CodeError{Code: exit.SignalError{Signal: os.Interrupt}.ExitCode(), Err: exit.SignalError{Signal: os.Interrupt}}, 130},
		{"sigterm carried", exit.CodeError{Code: exit.SignalError{Signal: syscall.SIGTERM}.ExitCode(), Err: exit.SignalError{Signal: syscall.SIGTERM}}, 143},
		{"broken pipe", epipe, 141},
		{"broken pipe, bare EPIPE", exit.StdoutError{Err: syscall.EPIPE}, 141},
		{"stdout full", exit.StdoutError{Err: &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}}, 1},
		{"EPIPE not on stdout", fmt.Errorf("mcp: %w", syscall.EPIPE), 1},
		// A signal is not a code of its own here: the caller that knows
		// the process was interrupted takes SignalError.ExitCode.
		{"signal", exit.SignalError{Signal: syscall.SIGTERM}, 1},
		// The order of today's exitCode: usage first, then the broken
		// pipe, then the carried code.
		{"usage beats carried code", exit.CodeError{Code: exit.Limit, Err: exit.UsageError{Err: errors.New("x")}}, 2},
		{"usage beats broken pipe", exit.UsageError{Err: epipe}, 2},
		{"broken pipe beats carried code", exit.CodeError{Code: exit.Limit, Err: epipe}, 141},
		{"outermost carried code wins", exit.CodeError{Code: exit.Policy, Err: exit.CodeError{Code: exit.Limit, Err: errors.New("x")}}, 3},
		// The engine's budget returns its errors without a code.
		{"budget cap", &agent.BudgetError{Limit: "max_cost", Spent: 1, Max: 1}, 4},
		{"token cap", &agent.BudgetError{Limit: "max_tokens_total", Spent: 9, Max: 8}, 4},
		{"cost cap without a price", &agent.BudgetError{Limit: "max_cost", Max: 1, Model: "m"}, 2},
		{"cost cap without a price, as usage", exit.UsageError{Err: &agent.BudgetError{Limit: "max_cost", Max: 1, Model: "m"}}, 2},
		{"max queries", &agent.QueriesError{Max: 2}, 4},
		// The engine's typed errors.
		{"engine limit", &agent.LimitError{Kind: agent.LimitMaxTurns, Err: errors.New("reached --max-turns 2")}, 4},
		{"engine timeout", &agent.LimitError{Kind: agent.LimitTimeout, Err: agent.ErrTimeout}, 4},
		{"engine budget limit", &agent.LimitError{Kind: agent.LimitBudget, Err: &agent.BudgetError{Limit: "max_cost", Max: 1}}, 4},
		{"engine queries limit", &agent.LimitError{Kind: agent.LimitBudget, Err: &agent.QueriesError{Max: 1}}, 4},
		{"engine policy stop", &agent.StopError{Kind: agent.StopPolicy, Msg: "x needs approval"}, 3},
		{"engine deferred", &agent.StopError{Kind: agent.StopDeferred, Msg: "paused"}, 3},
		{"engine max denials", &agent.StopError{Kind: agent.StopMaxDenials, Msg: "refused"}, 3},
		{"engine provider", &agent.ProviderError{Err: errors.New("500")}, 5},
		{"engine context length", &agent.ProviderError{Err: errors.New("too long"), Why: agent.ProviderContextLength}, 5},
		{"engine permanent", &agent.ProviderError{Err: errors.New("diverged"), Why: agent.ProviderPermanent}, 5},
		{"engine tool", &agent.ToolError{Tool: "bash", Err: errors.New("boom")}, 1},
		{"engine verify", &agent.CheckError{Check: "verify", Err: agent.ErrVerifyFailed}, 6},
		{"engine json schema", &agent.CheckError{Check: "json-schema", Err: errors.New("no match")}, 7},
		{"usage beats engine limit", exit.UsageError{Err: &agent.LimitError{Kind: agent.LimitMaxTurns, Err: errors.New("x")}}, 2},
		{"broken pipe beats engine tool", &agent.ToolError{Tool: "t", Err: epipe}, 141},
	}
	for _, tc := range tests {
		wrappings := []struct {
			how  string
			wrap func(error) error
		}{
			{"bare", func(err error) error { return err }},
			{"%w", func(err error) error { return fmt.Errorf("context: %w", err) }},
			{"Reported", func(err error) error { return exit.Reported{Err: err} }},
			{"%w of Reported", func(err error) error { return fmt.Errorf("run: %w", exit.Reported{Err: err}) }},
			{"joined", func(err error) error { return errors.Join(err) }},
		}
		for _, w := range wrappings {
			if tc.err == nil && w.how != "bare" {
				continue // a wrapped nil is an error of its own
			}
			if got := exit.Code(w.wrap(tc.err)); got != tc.want {
				t.Errorf("%s, %s: Code = %d, want %d", tc.name, w.how, got, tc.want)
			}
		}
	}
}

// TestErrorsKeepTheirCause checks that every carrier shows its cause's
// message byte for byte and lets errors.Is and errors.As reach it.
func TestErrorsKeepTheirCause(t *testing.T) {
	t.Parallel()
	cause := fmt.Errorf("config: %w", fs.ErrNotExist)
	tests := []struct {
		name string
		err  error
	}{
		{"UsageError", exit.UsageError{Err: cause}},
		{"Usagef %w", exit.Usagef("%w", cause)},
		{"CodeError", exit.CodeError{Code: exit.Limit, Err: cause, Kind: "timeout"}},
		{"Reported", exit.Reported{Err: cause}},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != cause.Error() {
			t.Errorf("%s: Error() = %q, want %q", tc.name, got, cause.Error())
		}
		if !errors.Is(tc.err, fs.ErrNotExist) {
			t.Errorf("%s: errors.Is does not reach the cause", tc.name)
		}
		var pe *fs.PathError
		wrapped := fmt.Errorf("x: %w", exit.Reported{Err: exit.UsageError{Err: &fs.PathError{Op: "open", Path: "p", Err: tc.err}}})
		if !errors.As(wrapped, &pe) || !errors.Is(wrapped, fs.ErrNotExist) {
			t.Errorf("%s: the chain breaks under %%w", tc.name)
		}
	}
	var ce exit.CodeError
	if !errors.As(fmt.Errorf("a: %w", exit.Reported{Err: exit.CodeError{Code: exit.Policy, Err: cause, Kind: "max_denials"}}), &ce) || ce.Kind != "max_denials" || ce.Code != exit.Policy {
		t.Errorf("CodeError not found under %%w and Reported: %+v", ce)
	}
}

// TestStdoutError checks the message a failed stdout write gets, and
// which of them IsBrokenPipe keeps quiet.
func TestStdoutError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		err    error
		msg    string
		broken bool
	}{
		{"path error", exit.StdoutError{Err: &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}}, "run: write stdout: no space left on device", false},
		{"bare", exit.StdoutError{Err: errors.New("short write")}, "run: write stdout: short write", false},
		{"EPIPE", exit.StdoutError{Err: &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}}, "run: write stdout: broken pipe", true},
		{"EPIPE wrapped", fmt.Errorf("flush: %w", exit.StdoutError{Err: syscall.EPIPE}), "flush: run: write stdout: broken pipe", true},
		{"EPIPE elsewhere", fmt.Errorf("hook: %w", syscall.EPIPE), "hook: broken pipe", false},
		{"nil", nil, "", false},
	}
	for _, tc := range tests {
		if tc.err != nil && tc.err.Error() != tc.msg {
			t.Errorf("%s: Error() = %q, want %q", tc.name, tc.err.Error(), tc.msg)
		}
		if got := exit.IsBrokenPipe(tc.err); got != tc.broken {
			t.Errorf("%s: IsBrokenPipe = %v, want %v", tc.name, got, tc.broken)
		}
	}
}

// TestSignalError checks the words and the code of the two signals main
// hands over, and of any other.
func TestSignalError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sig  os.Signal
		want string
		code int
	}{
		{os.Interrupt, "interrupted by SIGINT", 130},
		{syscall.SIGTERM, "interrupted by SIGTERM", 143},
		{syscall.SIGHUP, "interrupted by hangup", 129},
		{fakeSignal{}, "interrupted by fake", 130},
	}
	for _, tc := range tests {
		e := exit.SignalError{Signal: tc.sig}
		if e.Error() != tc.want || e.ExitCode() != tc.code {
			t.Errorf("SignalError{%v} = %q, exit %d; want %q, exit %d", tc.sig, e.Error(), e.ExitCode(), tc.want, tc.code)
		}
		var se exit.SignalError
		if !errors.As(fmt.Errorf("run: %w", e), &se) || se.Signal != tc.sig {
			t.Errorf("SignalError{%v} not found under %%w", tc.sig)
		}
	}
}

// fakeSignal is a signal that is not a syscall.Signal.
type fakeSignal struct{}

func (fakeSignal) String() string { return "fake" }
func (fakeSignal) Signal()        {}

// TestMeaning checks the words for every code of DESIGN's table; GitHub's
// job summary shows them.
func TestMeaning(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code int
		want string
	}{
		{exit.OK, "the model finished its answer"},
		{exit.Failure, "runtime failure"},
		{exit.Usage, "usage or configuration error"},
		{exit.Policy, "stopped by the policy"},
		{exit.Limit, "a limit was reached"},
		{exit.Provider, "the model provider failed"},
		{exit.Verify, "--verify never passed"},
		{exit.Schema, "the answer did not match --json-schema"},
		{130, "interrupted by SIGINT"},
		{143, "interrupted by SIGTERM"},
		{exit.BrokenPipe, "stdout closed by its reader"},
		{42, "unknown"},
	}
	for _, tc := range tests {
		if got := exit.Meaning(tc.code); got != tc.want {
			t.Errorf("Meaning(%d) = %q, want %q", tc.code, got, tc.want)
		}
	}
}

// TestEngineKind pins the machine output's error type of each limit, stop
// and check of the engine (json_limits, json_tool_error and the session
// scripts read them), and leaves the rest to the caller.
func TestEngineKind(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err       error
		typ       string
		retryable bool
		ok        bool
	}{
		"max turns":      {&agent.LimitError{Kind: agent.LimitMaxTurns, Err: errors.New("x")}, "max_turns", false, true},
		"max tool calls": {&agent.LimitError{Kind: agent.LimitMaxToolCalls, Err: errors.New("x")}, "max_tool_calls", false, true},
		"timeout":        {fmt.Errorf("w: %w", &agent.LimitError{Kind: agent.LimitTimeout, Err: agent.ErrTimeout}), "timeout", true, true},
		"abort on ask":   {&agent.StopError{Kind: agent.StopPolicy, Msg: "x"}, "policy", false, true},
		"deferred":       {&agent.StopError{Kind: agent.StopDeferred, Msg: "x"}, "policy", false, true},
		"max denials":    {&agent.StopError{Kind: agent.StopMaxDenials, Msg: "x"}, "max_denials", false, true},
		"verify":         {&agent.CheckError{Check: "verify", Err: agent.ErrVerifyFailed}, "verify_failed", false, true},
		"json schema":    {&agent.CheckError{Check: "json-schema", Err: errors.New("no match")}, "structured_output", false, true},
		"budget":         {&agent.LimitError{Kind: agent.LimitBudget, Err: &agent.BudgetError{Limit: "max_cost", Max: 1}}, "", false, false},
		"provider":       {&agent.ProviderError{Err: errors.New("x")}, "", false, false},
		"tool":           {&agent.ToolError{Tool: "t", Err: errors.New("x")}, "", false, false},
		"plain":          {errors.New("x"), "", false, false},
	}
	for name, tc := range tests {
		typ, retryable, ok := exit.EngineKind(tc.err)
		if typ != tc.typ || retryable != tc.retryable || ok != tc.ok {
			t.Errorf("%s: EngineKind = %q, %v, %v; want %q, %v, %v", name, typ, retryable, ok, tc.typ, tc.retryable, tc.ok)
		}
	}
}
