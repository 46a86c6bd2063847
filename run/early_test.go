package run

import (
	"slices"
	"strings"
	"testing"
)

// earlyEdgeCases are argument vectors (after the program name) whose early
// reading is easy to get wrong.
func earlyEdgeCases() [][]string {
	return [][]string{
		{},
		{"exec"},
		{"exec", "--output", "json", "hi"},
		{"exec", "--output=json", "hi"},
		{"exec", "--output=stream-json"},
		{"exec", "hi", "--output"},
		{"exec", "--output="},
		{"exec", "--output", "--", "json"},
		{"exec", "--output", "--github=false"},
		{"exec", "--output", "-h"},
		{"exec", "-output", "json"},
		{"exec", "---output=json"},
		{"exec", "--output", "json", "--output", "text"},
		{"exec", "--output", "json", "--help"},
		{"exec", "--output", "json", "-h"},
		{"exec", "--help=false", "--output", "json"},
		{"exec", "--", "--output", "json"},
		{"exec", "--", "--github=false"},
		{"exec", "--github=0"},
		{"exec", "--github=1"},
		{"exec", "--github"},
		{"exec", "-github=false"},
		{"exec", "--github=false", "--github"},
		{"exec", "github=false"},
		{"exec", "--output", "json", "--", "--github=false"},
		{"exec", "-", "--output", "stream-json"},
		{"help", "exec"},
		{"help", "exec", "--output", "json"},
		{"chat", "--output", "json"},
		{"-i", "--output", "json"},
		{"--interactive", "exec", "--output", "json"},
		{"-i"},
		{"-interactive"},
		{"--version"},
		{"exec", "-i", "--output", "json"},
		{"config", "show", "--github"},
	}
}

// earlyEnvs are the environments every vector is read under.
func earlyEnvs() []map[string]string {
	return []map[string]string{
		{},
		{"GITHUB_ACTIONS": "true"},
		{"GITHUB_ACTIONS": "true", "RUBICHAN_GITHUB": "false"},
		{"GITHUB_ACTIONS": "true", "RUBICHAN_GITHUB": "0", "RUBICHAN_OUTPUT": "json"},
		{"GITHUB_ACTIONS": "1", "RUBICHAN_OUTPUT": "stream-json"},
		{"RUBICHAN_OUTPUT": "text"},
		{"RUBICHAN_GITHUB": "", "GITHUB_ACTIONS": "true", "RUBICHAN_OUTPUT": ""},
	}
}

// checkEarly compares scanArgs with the readers it replaced on one vector
// in every environment.
func checkEarly(t *testing.T, words []string) {
	t.Helper()
	args := append([]string{"rubichan"}, words...)
	for _, env := range earlyEnvs() {
		got := scanArgs(slices.Clone(args), mapEnv(env))
		wantArgs, wantOutput, wantGitHub := oldEarlyReading(slices.Clone(args), mapEnv(env))
		wantCommand := ""
		if len(wantArgs) >= 2 {
			wantCommand = wantArgs[1]
		}
		if !slices.Equal(got.args, wantArgs) || got.command != wantCommand || got.output != wantOutput || got.github != wantGitHub {
			t.Errorf("scanArgs(%q) under %v = {args %q, command %q, output %q, github %v}, want {%q, %q, %q, %v}",
				args, env, got.args, got.command, got.output, got.github, wantArgs, wantCommand, wantOutput, wantGitHub)
		}
	}
}

// TestScanArgsAsOldReaders checks that the one early parse reads the raw
// arguments as the readers it replaced did, over edge cases and the
// FuzzNormalizeArgs seeds.
func TestScanArgsAsOldReaders(t *testing.T) {
	t.Parallel()
	for _, words := range earlyEdgeCases() {
		checkEarly(t, words)
	}
	for _, seed := range normalizeArgsSeeds() {
		checkEarly(t, append([]string{"exec"}, strings.Split(seed, "\x00")...))
	}
}

// FuzzScanArgs compares scanArgs with the old readers on any words after
// exec (and, with -i, after chat).
func FuzzScanArgs(f *testing.F) {
	for _, seed := range normalizeArgsSeeds() {
		f.Add(seed)
	}
	for _, words := range earlyEdgeCases() {
		f.Add(strings.Join(words, "\x00"))
	}
	f.Fuzz(func(t *testing.T, joined string) {
		checkEarly(t, strings.Split(joined, "\x00"))
		checkEarly(t, append([]string{"exec"}, strings.Split(joined, "\x00")...))
	})
}

// TestOpenEarly checks the sinks made from the early reading.
func TestOpenEarly(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		early        earlyArgs
		json, stream bool
		github       bool
	}{
		"text":        {earlyArgs{command: "exec"}, false, false, false},
		"json":        {earlyArgs{command: "exec", output: outputJSON}, true, false, false},
		"stream-json": {earlyArgs{command: "exec", output: outputStreamJSON}, true, true, false},
		"github":      {earlyArgs{command: "exec", github: true}, false, false, true},
		"both":        {earlyArgs{command: "exec", output: outputJSON, github: true}, true, false, true},
	} {
		out := openEarly(c.early, nil, nil, mapEnv(nil), nil)
		if (out.json != nil) != c.json || (out.github != nil) != c.github {
			t.Errorf("%s: json sink %v, reporter %v; want %v, %v", name, out.json != nil, out.github != nil, c.json, c.github)
		}
		if out.json != nil && out.json.Stream() != c.stream {
			t.Errorf("%s: stream %v, want %v", name, out.json.Stream(), c.stream)
		}
	}
}

// TestPromptFlagToExec: -p PROMPT (and --print, --prompt) is exec PROMPT
// with the flags around it kept in place; a named command, a flag after
// `--` or no -p leaves the words as they are.
func TestPromptFlagToExec(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"rubichan -p hi", "rubichan exec hi"},
		{"rubichan -p hi --max-turns 3", "rubichan exec hi --max-turns 3"},
		{"rubichan --max-turns 3 -p hi", "rubichan exec --max-turns 3 hi"},
		{"rubichan --print --output-format json hi", "rubichan exec --output-format json hi"},
		{"rubichan --prompt hi", "rubichan exec hi"},
		{"rubichan exec -p hi", "rubichan exec -p hi"},
		{"rubichan policy check -p", "rubichan policy check -p"},
		{"rubichan --model x -- -p", "rubichan --model x -- -p"},
		{"rubichan --model x", "rubichan --model x"},
		{"rubichan", "rubichan"},
	} {
		if got := strings.Join(promptFlagToExec(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}
