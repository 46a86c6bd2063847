package run

import (
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/urfave/cli/v2"
)

// resumedFlags are the flags whose values a resumed run needs as the
// deferred run had them: where the model is and which, what the policy
// allows, how calls needing approval are handled, the sandbox, the MCP
// servers and skills, the limits, the verification and the structured
// output's retries, the output and where the session lives. The prompt,
// the session's own naming and the patch are not carried, nor
// --json-schema, which the session keeps.
var resumedFlags = []string{
	"config", "provider", "model", "base-url",
	"policy", "allow", "deny", "trust-workspace", "allow-all", "on-ask",
	"sandbox", "network", "mcp-config", "no-mcp", "skills", "no-skills", "pass-env", "no-subqueries", "sub-model",
	"max-cost", "max-tokens-total", "max-turns", "timeout", "max-tool-calls",
	"verify", "verify-attempts", "verify-timeout", "json-schema-retries",
	"output", "include-thinking", "quiet", "verbose", "github",
	"cwd", "session-dir",
}

// resumeArgs returns the flags of the run in c that the run resuming it
// needs (see [resumedFlags]), each as shell words, quoted so that the
// line the deferred run prints works pasted into a shell. A flag given
// through its RUBICHAN_* variable is repeated as a flag too: the line may
// be pasted where that variable is not set. --allow and --deny are their
// rules, one flag each.
func resumeArgs(c *cli.Context) []string {
	var out []string
	for _, name := range resumedFlags {
		if !c.IsSet(name) {
			continue
		}
		switch name {
		case "allow", "deny":
			for _, r := range splitRules(c.StringSlice(name)) {
				out = append(out, "--"+name, shellWord(r))
			}
		case "pass-env", "skills":
			for _, v := range c.StringSlice(name) {
				out = append(out, "--"+name, shellWord(v))
			}
		default:
			if bf, ok := boolFlagOf(flagNamed(c, name)); ok && bf != nil {
				if c.Bool(name) {
					out = append(out, "--"+name)
				} else {
					out = append(out, "--"+name+"=false")
				}
				continue
			}
			out = append(out, "--"+name, shellWord(c.String(name)))
		}
	}
	return out
}

// flagNamed returns the flag of c's command called name, or nil.
func flagNamed(c *cli.Context, name string) cli.Flag {
	if c.Command == nil {
		return nil
	}
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// shellWord is [sink.ShellWord].
func shellWord(s string) string { return sink.ShellWord(s) }

// redactedArgs are the resumed run's flags with the run's secrets
// redacted: a flag value may hold the key (a --verify command naming it),
// and the approve line goes to stderr, a CI job's log. Such a line no
// longer works pasted as is; the key is still never printed.
func redactedArgs(args []string, red *agent.Redactor) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = red.Redact(a)
	}
	return out
}
