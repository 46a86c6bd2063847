package run

import (
	"io"
	"strings"
	"time"

	"github.com/rubichan/rubichan/run/ghactions"
	"github.com/rubichan/rubichan/run/sink"
)

// earlyArgs is what rubichan reads from its raw arguments before the
// command line is parsed: [scanArgs] is the one place that reads them so.
// The outputs it names must exist before the parse, because a usage error
// in the arguments still ends in a JSON result object, and under GitHub
// Actions its message is neutralised too.
type earlyArgs struct {
	// args are the arguments with `-i` or `--interactive` first turned
	// into `chat`.
	args []string
	// command is args[1], "" when there is none.
	command string
	// output is "json" or "stream-json" for an exec run whose
	// RUBICHAN_OUTPUT, overridden by --output, names one of them; "" for
	// any other format, another command, or --help/-h (no run).
	output string
	// github reports an exec run under GitHub Actions
	// (GITHUB_ACTIONS=true) unless --github=false or RUBICHAN_GITHUB=false.
	github bool
}

// scanArgs reads the raw arguments (args[0] is the program name) once,
// before they are parsed. Both readings stop at `--`. The --output reading
// takes the word after a bare --output as its value (when there is one);
// the --github reading skips no values: `--output --github=false` turns
// the reporter off. Everything after the command is read by
// [normalizeArgs] and the parse proper.
func scanArgs(args []string, lookupEnv func(string) (string, bool)) earlyArgs {
	if len(args) >= 2 && (args[1] == "-i" || args[1] == "--interactive") {
		args = append([]string{args[0], "chat"}, args[2:]...)
	}
	args = promptFlagToExec(args)
	early := earlyArgs{args: args}
	if len(args) < 2 {
		return early
	}
	early.command = args[1]
	if early.command != "exec" {
		return early
	}
	output, _ := lookupEnv(envName("output"))
	github := true
	if v, ok := lookupEnv(envName("github")); ok && v != "" {
		github = v == "true" || v == "1"
	}
	outputDone, githubDone, outputValue := false, false, false
	for _, a := range args[2:] {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		dashed := strings.HasPrefix(a, "-")
		switch {
		case githubDone:
		case a == "--":
			githubDone = true
		case dashed && name == "github":
			github = !hasValue || value == "true" || value == "1"
		}
		switch {
		case outputDone:
		case outputValue:
			output, outputValue = a, false
		case a == "--":
			outputDone = true
		case !dashed:
		case name == "help" || name == "h":
			output, outputDone = "", true
		case (name == "output" || name == "output-format") && hasValue:
			output = value
		case name == "output" || name == "output-format":
			outputValue = true
		}
	}
	if output == outputJSON || output == outputStreamJSON {
		early.output = output
	}
	if v, _ := lookupEnv("GITHUB_ACTIONS"); v == "true" {
		early.github = github
	}
	return early
}

// promptFlagToExec turns `rubichan [FLAGS] -p PROMPT [FLAGS]` into
// `rubichan exec [FLAGS] PROMPT [FLAGS]`: -p PROMPT is exec PROMPT, with
// flags before or after it as with exec. Only a first word that is a flag
// (no command named) is read so, and only up to `--`.
func promptFlagToExec(args []string) []string {
	if len(args) < 2 || !strings.HasPrefix(args[1], "-") {
		return args
	}
	for i, a := range args[1:] {
		if a == "--" {
			return args
		}
		// claude's -p/--print, gemini's and qwen's -p/--prompt.
		if a == "-p" || a == "--print" || a == "--prompt" {
			out := append([]string{args[0], "exec"}, args[1:i+1]...)
			return append(out, args[i+2:]...)
		}
	}
	return args
}

// earlyOutput holds the sinks made from [earlyArgs] before the app: the
// exec action writes to them, and [runMain] closes them with the exit
// code. Either may be nil.
type earlyOutput struct {
	json   *sink.JSON   // --output json or stream-json
	github *sink.GitHub // under GitHub Actions
}

// openEarly makes the sinks early names. Under GitHub Actions stderr is
// the reporter's neutralised writer from here on, and so is the JSON
// stream on stdout; the GitHub summary goes to $GITHUB_STEP_SUMMARY.
func openEarly(early earlyArgs, stdout, stderr io.Writer, lookupEnv func(string) (string, bool), now func() time.Time) earlyOutput {
	var out earlyOutput
	if early.github {
		path, _ := lookupEnv("GITHUB_STEP_SUMMARY")
		out.github = sink.NewGitHub(stderr, path)
	}
	if early.output == "" {
		return out
	}
	// JSON may be read on a terminal: nothing in it acts on one.
	var machineOut io.Writer = sink.NewJSONShown(stdout)
	if out.github != nil {
		// Nor can a JSON line on stdout hold a workflow command.
		machineOut = ghactions.NewJSONWriter(machineOut)
	}
	if now == nil {
		now = time.Now
	}
	out.json = sink.NewJSON(machineOut, early.output == outputStreamJSON, sink.NewSessionID(now()), now)
	return out
}
