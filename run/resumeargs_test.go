package run

import (
	"io"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestResumeArgs: the flags a deferred run's approve line repeats, in a
// fixed order, quoted for the shell; booleans as --name or --name=false;
// the prompt, the session's naming and --patch left out.
func TestResumeArgs(t *testing.T) {
	for name, c := range map[string]struct{ args, want []string }{
		"none": {nil, nil},
		"model and rules": {[]string{"--model", "m-1", "--allow", "shell:go test *", "--allow", "write:src/**", "--deny", "write:x"},
			[]string{"--model", "m-1", "--allow", "'shell:go test *'", "--allow", "'write:src/**'", "--deny", "write:x"}},
		"booleans": {[]string{"--trust-workspace", "--github=false"}, []string{"--trust-workspace", "--github=false"}},
		"left out": {[]string{"--session-id", "x", "--patch", "p.diff", "--prompt-file", "f"}, nil},
		"quoted":   {[]string{"--base-url", "http://127.0.0.1:1/v1", "--policy", "my policy.toml", "-C", "it's"}, []string{"--base-url", "http://127.0.0.1:1/v1", "--policy", "'my policy.toml'", "--cwd", `'it'\''s'`}},
		// The session keeps its --json-schema (not repeated); its retries
		// it does not keep, so the line repeats them.
		"schema retries": {[]string{"--json-schema", "{}", "--json-schema-retries", "5"}, []string{"--json-schema-retries", "5"}},
		"rule lines":     {[]string{"--allow", "write:a\n  shell:go vet *\n"}, []string{"--allow", "write:a", "--allow", "'shell:go vet *'"}},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			app := &cli.App{Writer: io.Discard, ErrWriter: io.Discard, DisableSliceFlagSeparator: true, Commands: []*cli.Command{{
				Name: "exec", Flags: execFlags(),
				Action: func(c *cli.Context) error { got = resumeArgs(c); return nil },
			}}}
			if err := app.Run(append([]string{"rubichan", "exec"}, c.args...)); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
