package run

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
)

// fakeEnv is an environment whose variables come from a map.
func fakeEnv(vars map[string]string) environment {
	return environment{Env: harness.Env{LookupEnv: func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}}}
}

// runApp runs rubichan in-process on buffers and returns the exit code and
// both outputs.
func runCLI(t *testing.T, env environment, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	var in *strings.Reader
	if stdin != "" {
		in = strings.NewReader(stdin)
	}
	var r interface{ Read([]byte) (int, error) }
	if in != nil {
		r = in
	}
	code := runMain(context.Background(), append([]string{"rubichan"}, args...), r, &out, &errOut, env)
	return code, out.String(), errOut.String()
}

// Tests that run the app are not parallel: urfave/cli v2 keeps its help and
// version flags in package variables that every Run writes.

func TestAppUsage(t *testing.T) {
	keyed := fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "sk-test-secret"})
	tests := map[string]struct {
		args       []string
		env        environment
		wantCode   int
		wantStdout string
		wantStderr []string
	}{
		"bare":                    {args: nil, wantCode: exit.Usage, wantStderr: []string{"USAGE", "rubichan exec"}},
		"unknown command":         {args: []string{"fix it"}, wantCode: exit.Usage, wantStderr: []string{`unknown command "fix it"`, `rubichan exec "fix it"`}},
		"version":                 {args: []string{"version"}, wantCode: exit.OK, wantStdout: "rubichan version " + readBuildInfo().String() + "\n"},
		"--version":               {args: []string{"--version"}, wantCode: exit.OK, wantStdout: "rubichan version " + readBuildInfo().String() + "\n"},
		"-v is not --version":     {args: []string{"-v"}, wantCode: exit.Usage, wantStderr: []string{"unknown flag -v: the version is --version", "-v is --verbose"}},
		"help unknown":            {args: []string{"help", "bogus"}, wantCode: exit.Usage, wantStderr: []string{`help: unknown command "bogus"`}},
		"unknown flag":            {args: []string{"exec", "fix", "--bogus"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"unknown flag --bogus", "rubichan exec --help"}},
		"bad flag value":          {args: []string{"exec", "fix", "--max-turns", "many"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"max-turns"}},
		"zero max turns":          {args: []string{"exec", "fix", "--max-turns", "0"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"--max-turns: must be at least 1, got 0"}},
		"negative max turns":      {args: []string{"exec", "fix", "--max-turns", "-1"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"--max-turns: must be at least 1, got -1"}},
		"bad output":              {args: []string{"exec", "--output", "xml", "fix"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"--output must be text, final, json or stream-json"}},
		"bad on-ask":              {args: []string{"exec", "--on-ask", "maybe", "fix"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"--on-ask"}},
		"bad provider":            {args: []string{"exec", "--provider", "x", "fix"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"--provider"}},
		"missing key":             {args: []string{"exec", "fix"}, env: fakeEnv(nil), wantCode: exit.Usage, wantStderr: []string{"ANTHROPIC_API_KEY"}},
		"missing openai key":      {args: []string{"exec", "--provider", "openai", "fix"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"OPENAI_API_KEY"}},
		"quiet and verbose":       {args: []string{"exec", "-q", "-v", "fix"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"--quiet and --verbose"}},
		"missing workspace":       {args: []string{"exec", "-C", "/nonexistent/dir", "fix"}, env: keyed, wantCode: exit.Usage, wantStderr: []string{"workspace"}},
		"version extra words":     {args: []string{"version", "x"}, wantCode: exit.Usage, wantStderr: []string{"no arguments"}},
		"bad bool variable":       {args: []string{"exec", "fix"}, env: fakeEnv(map[string]string{"RUBICHAN_QUIET": "maybe"}), wantCode: exit.Usage, wantStderr: []string{`RUBICHAN_QUIET: want true or false (or 1 or 0), got "maybe"`}},
		"subcommand unknown flag": {args: []string{"config", "show", "--bogus"}, wantCode: exit.Usage, wantStderr: []string{"rubichan: config show: unknown flag --bogus\n", "run 'rubichan config show --help' for usage"}},
		"subcommand usage hint":   {args: []string{"policy", "check", "--", "ls"}, wantCode: exit.Usage, wantStderr: []string{"run 'rubichan policy check --help' for usage"}},
		"unknown global flag":     {args: []string{"--bogus"}, wantCode: exit.Usage, wantStderr: []string{"rubichan: unknown flag --bogus; commands: exec, chat, acp, query, config, version, policy, skills, sandbox, mcp, schema, sessions, doctor, results\n"}},
		"config alone":            {args: []string{"config"}, wantCode: exit.Usage, wantStderr: []string{"config: missing subcommand", "rubichan config show"}},
		"config unknown":          {args: []string{"config", "bogus"}, wantCode: exit.Usage, wantStderr: []string{`config: unknown subcommand "bogus"`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			env := tc.env
			if env.LookupEnv == nil {
				env = fakeEnv(nil)
			}
			code, stdout, stderr := runCLI(t, env, "", tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d; stderr:\n%s", code, tc.wantCode, stderr)
			}
			if stdout != tc.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout, tc.wantStdout)
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "sk-test-secret") {
				t.Errorf("stderr shows the API key:\n%s", stderr)
			}
		})
	}
}

// TestHelpCommand checks that `rubichan help` prints the help (never
// suggesting a paid `rubichan exec "help"`), that the usage lists every
// command, and the one meaning of -v and -m.
func TestHelpCommand(t *testing.T) {
	tests := map[string]struct {
		args []string
		want []string
	}{
		"help": {[]string{"help"}, []string{"USAGE:\n   rubichan exec [flags] [PROMPT...]\n   rubichan chat [flags] [PROMPT...]   (or rubichan -i: line mode)\n   rubichan query [flags] PROMPT\n   rubichan acp [flags]                (an editor's agent: the Agent Client Protocol)\n   rubichan policy check [flags] --tool CLASS -- ARG\n   rubichan config show [flags]\n   rubichan schema events\n   rubichan version\n   rubichan help [COMMAND]\n",
			"--version", "exec", "policy", "config"}},
		"help exec":   {[]string{"help", "exec"}, []string{"--verbose, -v", "--model NAME, -m NAME"}},
		"help policy": {[]string{"help", "policy"}, []string{"work with policy files"}},
		"help chat":   {[]string{"help", "chat"}, []string{"rubichan -i [flags] [PROMPT...]", "--max-turns"}},
	}
	for name, tc := range tests {
		code, stdout, stderr := runCLI(t, fakeEnv(nil), "", tc.args...)
		if code != exit.OK || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout does not contain %q:\n%s", name, w, stdout)
			}
		}
		if strings.Contains(stdout+stderr, `exec "help"`) || strings.Contains(stdout, "--version, -v") {
			t.Errorf("%s: help suggests a model call or -v for the version:\n%s", name, stdout)
		}
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"exec", "--help"}} {
		code, stdout, stderr := runCLI(t, fakeEnv(nil), "", args...)
		if code != exit.OK || !strings.Contains(stdout, "rubichan") || stderr != "" {
			t.Errorf("%q: code %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	_, stdout, _ := runCLI(t, fakeEnv(nil), "", "exec", "--help")
	for _, f := range []string{"--max-turns", "--on-ask", "--prompt-file", "RUBICHAN_MAX_TURNS"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("exec --help does not mention %s", f)
		}
	}
}

func TestFlagsReadEnvironment(t *testing.T) {
	// The configuration's variables are read through the environment the
	// runner is given (LoadConfig), not by urfave/cli.
	code, _, stderr := runCLI(t, fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "k", "RUBICHAN_MAX_TURNS": "0"}), "", "exec", "fix")
	if code != exit.Usage || !strings.Contains(stderr, "RUBICHAN_MAX_TURNS: must be at least 1, got 0") {
		t.Fatalf("RUBICHAN_MAX_TURNS=0: code %d, stderr %q", code, stderr)
	}
}

// TestHelpHasExamples checks that every command a user runs shows, in its
// own --help, an example and the exit codes, and names every variable the
// same way.
func TestHelpHasExamples(t *testing.T) {
	tests := map[string]struct {
		args []string
		want []string
	}{
		"exec": {args: []string{"exec", "--help"}, want: []string{
			"Examples:",
			`git diff | rubichan exec --output final "write a commit message for this diff"`,
			"Exit codes:",
		}},
		"policy check": {args: []string{"policy", "check", "--help"}, want: []string{
			"Examples:",
			"rubichan policy check --tool shell -- 'git status && rm -rf /'",
		}},
		"config show": {args: []string{"config", "show", "--help"}, want: []string{
			"Examples:",
			"rubichan config show --json",
			"Exit codes:",
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, stdout, _ := runCLI(t, fakeEnv(nil), "", tc.args...)
			if code != exit.OK {
				t.Fatalf("exit code %d", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("%s --help does not contain %q:\n%s", name, w, stdout)
				}
			}
			// urfave/cli shows a flag's variables as [$NAME]; a
			// hand-written (…) beside them reads like something else.
			if strings.Contains(stdout, "($RUBICHAN_") {
				t.Errorf("%s --help names a variable in parentheses, not [$NAME]:\n%s", name, stdout)
			}
		})
	}
}

func TestSignalErrorNamesTheSignal(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		sig  os.Signal
		want string
		code int
	}{
		"SIGINT":       {os.Interrupt, "interrupted by SIGINT", 130},
		"SIGTERM":      {syscall.SIGTERM, "interrupted by SIGTERM", 143},
		"other signal": {syscall.SIGHUP, "interrupted by hangup", 129},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := exit.SignalError{Signal: tc.sig}
			if e.Error() != tc.want || e.ExitCode() != tc.code {
				t.Errorf("exit.SignalError{%v} = %q, exit %d; want %q, exit %d", tc.sig, e.Error(), e.ExitCode(), tc.want, tc.code)
			}
		})
	}
}

func TestStdoutErrorSaysItOnce(t *testing.T) {
	t.Parallel()
	err := exit.StdoutError{Err: &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}}
	if got, want := err.Error(), "run: write stdout: no space left on device"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("%v does not wrap ENOSPC", err)
	}
}
