package run

import (
	"strconv"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/urfave/cli/v2"
)

// envName is the environment variable every flag also reads (see
// [config.EnvName]).
func envName(flag string) string { return config.EnvName(flag) }

func envs(flag string) []string { return []string{envName(flag)} }

// execFlags are the flags of `rubichan exec`, each also read from its
// RUBICHAN_* environment variable. The flags that set configuration keys
// come from [configFlags]; LoadConfig reads their variables.
func execFlags() []cli.Flag {
	const (
		catPolicy  = "Policy"
		catInput   = "Input"
		catOutput  = "Output"
		catSession = "Session"
		catReplay  = "Record and replay"
		catContext = "Context window"
		catPatch   = "Patch"
	)
	flags := policyFlags(catPolicy)
	flags = append(flags, []cli.Flag{
		&cli.StringFlag{Name: "on-ask", Usage: "`ACTION` for a call needing approval with nobody there: deny (tell the model), abort (exit 3) or defer (exit 3, the call pending for --resume --approve); default: the policy's headless_ask", EnvVars: envs("on-ask"), Category: catPolicy},

		&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), Category: catInput, TakesFile: true},
		&cli.BoolFlag{Name: "no-stdin", Usage: "never read standard input", EnvVars: envs("no-stdin"), Category: catInput},
		&cli.StringFlag{Name: "prompt-file", Usage: "read the prompt from `FILE`", EnvVars: envs("prompt-file"), Category: catInput, TakesFile: true},
		&cli.StringFlag{Name: "system-prompt", Usage: "replace the base system prompt with `TEXT`", EnvVars: envs("system-prompt"), Category: catInput},
		&cli.StringFlag{Name: "append-system-prompt", Usage: "add `TEXT` to the system prompt", EnvVars: envs("append-system-prompt"), Category: catInput},
		&cli.BoolFlag{Name: "no-context-files", Usage: "do not add AGENTS.md, AGENT.md or CLAUDE.md to the system prompt", EnvVars: envs("no-context-files"), Category: catInput},
		&cli.StringSliceFlag{Name: "pass-env", Usage: "pass the environment variable `NAME` to bash although its name looks secret (never a provider's key variable); repeat for more", EnvVars: envs("pass-env"), Category: catInput},

		&cli.StringFlag{Name: "output", Aliases: []string{"output-format"}, Value: "text", Usage: "stdout `FORMAT`: text (streamed), final (the last message only), stream-json (one JSON event per line; see `rubichan schema events`) or json (the result object only)", EnvVars: envs("output"), Category: catOutput},
		&cli.StringFlag{Name: "output-last-message", Aliases: []string{"o"}, Usage: "also write the final message, with a trailing newline, to `FILE` (stdout is unchanged)", EnvVars: envs("output-last-message"), Category: catOutput, TakesFile: true},
		&cli.StringFlag{Name: "json-schema", Aliases: []string{"output-schema"}, Usage: "the final answer must be JSON matching the JSON Schema (2020-12) `SCHEMA`: inline JSON, @FILE or a path; stdout then holds that JSON alone, on one line (json, stream-json: the result's structured_output); an answer that never matches exits 7", EnvVars: envs("json-schema"), Category: catOutput, TakesFile: true},
		&cli.StringFlag{Name: "json-schema-retries", Value: "2", Usage: "send an answer that does not match --json-schema back to the model with its errors at most `N` times", EnvVars: envs("json-schema-retries"), Category: catOutput},
		&cli.BoolFlag{Name: "include-thinking", Usage: "stream-json: also write the model's reasoning as thinking events", EnvVars: envs("include-thinking"), Category: catOutput},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "stderr: errors only", EnvVars: envs("quiet"), Category: catOutput},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "stderr: tool output too", EnvVars: envs("verbose"), Category: catOutput},
		&cli.StringFlag{Name: "color", Value: "auto", Usage: "colors on stderr: `WHEN` is auto, always or never (auto: a terminal other than TERM=dumb, and NO_COLOR unset)", EnvVars: envs("color"), Category: catOutput},
		&cli.BoolFlag{Name: "github", Value: true, Usage: "under GitHub Actions (GITHUB_ACTIONS=true): a job summary in $GITHUB_STEP_SUMMARY, annotations for denials and failures, --verbose output in groups, and no workflow command from the model or a tool; --github=false turns it off", EnvVars: envs("github"), Category: catOutput},
		&cli.StringFlag{Name: "record", Usage: "write every model HTTP exchange of the run to the cassette `FILE` (JSON lines, keys left out; see docs/cassettes.md)", EnvVars: envs("record"), Category: catReplay, TakesFile: true},
		&cli.StringFlag{Name: "replay", Usage: "answer the model's requests from the cassette `FILE`: no network, no API key; a run that diverges from it stops (exit 5)", EnvVars: envs("replay"), Category: catReplay, TakesFile: true},
		&cli.StringFlag{Name: "replay-mode", Value: "strict", Usage: "how closely a replayed run must match: `MODE` strict (whole requests, volatile parts aside) or lenient (message count and tool names)", EnvVars: envs("replay-mode"), Category: catReplay},
		&cli.StringFlag{Name: "session-dir", Usage: "write the session log (JSONL) in `DIR` (default: $XDG_STATE_HOME/rubichan/sessions, ~/.local/state/…)", EnvVars: envs("session-dir"), Category: catOutput, TakesFile: true},
		&cli.BoolFlag{Name: "no-session", Usage: "write no session log", EnvVars: envs("no-session"), Category: catOutput},

		&cli.BoolFlag{Name: "no-subqueries", Usage: "give the run's commands no sub-query socket: 'rubichan query' in them cannot reach the model", EnvVars: envs("no-subqueries"), Category: "Sub-queries"},
		&cli.BoolFlag{Name: "subqueries", Usage: "tell the model about 'rubichan query' also without a spilled stdin", EnvVars: envs("subqueries"), Category: "Sub-queries"},
		&cli.BoolFlag{Name: "no-compact", Usage: "never compact: a conversation that outgrows the context window ends the run (exit 5)", EnvVars: envs("no-compact"), Category: catContext},
		&cli.StringFlag{Name: "patch", Usage: "work on a private copy of the workspace, leave the checkout untouched and write the patch of the changes to `FILE` at the end (\"-\": stdout, the model's text then goes to stderr)", EnvVars: envs("patch"), Category: catPatch, TakesFile: true},
		&cli.StringFlag{Name: "patch-max-size", Value: "1GB", Usage: "outside git, refuse (exit 2) to copy a workspace larger than `SIZE`", EnvVars: envs("patch-max-size"), Category: catPatch},
	}...)
	flags = append(flags, mcpFlags("MCP")...)
	flags = append(flags, skillFlags("Skills")...)
	flags = append(flags, taskFlags("Fan-out")...)
	return append(append(flags, sessionFlagList(catSession)...), configFlags()...)
}

// sessionFlagList are the flags that name, resume and answer sessions.
func sessionFlagList(cat string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "session-id", Usage: "name the new session `ID` (letters, digits, -_.)", EnvVars: envs("session-id"), Category: cat},
		&cli.StringFlag{Name: "learn-policy", Usage: "at the end, write the policy learned from this run's session to `FILE` (see rubichan policy learn)", EnvVars: envs("learn-policy"), Category: cat, TakesFile: true},
		&cli.StringFlag{Name: "session-file", Usage: "write the session to `FILE` instead of the state directory (a CI artifact; resume it with --resume FILE)", EnvVars: envs("session-file"), Category: cat, TakesFile: true},
		&cli.StringFlag{Name: "resume", Usage: "add this run to session `ID|PATH`, its conversation restored before the prompt", EnvVars: envs("resume"), Category: cat},
		&cli.BoolFlag{Name: "continue", Usage: "resume the newest session of this workspace", EnvVars: envs("continue"), Category: cat},
		&cli.BoolFlag{Name: "fork", Usage: "with --resume or --continue: go on in a new session copied from it", EnvVars: envs("fork"), Category: cat},
		&cli.StringSliceFlag{Name: "approve", Usage: "run the pending call `CALL_ID` (or all) of the resumed session as approved; repeat for more", EnvVars: envs("approve"), Category: cat},
		&cli.BoolFlag{Name: "deny-pending", Usage: "deny the pending calls of the resumed session; the model is told", EnvVars: envs("deny-pending"), Category: cat},
	}
}

// skillFlags choose the skills a run offers (exec, chat, `skills list`,
// `policy check`, which shows their read rules).
func skillFlags(category string) []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "skills", Usage: "also offer the skills in `DIR` (a folder of skill folders, or one skill folder), trusted wherever it is; repeat for more", EnvVars: envs("skills"), Category: category, TakesFile: true},
		&cli.BoolFlag{Name: "no-skills", Usage: "offer no skills: no discovery at all", EnvVars: envs("no-skills"), Category: category},
	}
}

// policyFlags are the flags that choose the policy, shared by `rubichan
// exec` and `rubichan policy check` so that check resolves the policy
// exactly as a run would.
func policyFlags(category string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "policy", Usage: "policy `FILE` (TOML)", EnvVars: envs("policy"), Category: category, TakesFile: true},
		&cli.StringSliceFlag{Name: "allow", Usage: "add an allow `RULE`, CLASS:PATTERN (e.g. 'shell:go test ./...', 'write:src/**'); repeat for more", EnvVars: envs("allow"), Category: category},
		&cli.StringSliceFlag{Name: "deny", Usage: "add a deny `RULE`, CLASS:PATTERN; repeat for more", EnvVars: envs("deny"), Category: category},
		&cli.BoolFlag{Name: "trust-workspace", Usage: "use the workspace's .rubichan/policy.toml and the provider, base_url, api_key_env and headers keys of its .rubichan/config.toml (a checkout may be attacker-controlled)", EnvVars: envs("trust-workspace"), Category: category},
	}
}

// checkBoolEnv reports a RUBICHAN_* variable of a boolean flag of the
// command args name that is neither true nor false, in our words:
// urfave/cli's own message quotes strconv's ("strconv.ParseBool: parsing
// …: invalid syntax"). An empty variable counts as unset, as urfave/cli
// treats it.
func checkBoolEnv(app *cli.App, args []string, lookupEnv func(string) (string, bool)) error {
	if len(args) < 2 {
		return nil
	}
	cmd := app.Command(args[1])
	for i := 2; cmd != nil && i < len(args); i++ {
		sub := cmd.Command(args[i])
		if sub == nil {
			break
		}
		cmd = sub
	}
	if cmd == nil {
		return nil
	}
	for _, f := range cmd.Flags {
		bf, ok := boolFlagOf(f)
		if !ok {
			continue
		}
		for _, name := range bf.EnvVars {
			v, ok := lookupEnv(name)
			if !ok || v == "" {
				continue
			}
			if _, err := strconv.ParseBool(v); err != nil {
				return exit.Usagef("%s: want true or false (or 1 or 0), got %q", name, v)
			}
		}
	}
	return nil
}
