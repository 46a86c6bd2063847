// Package ghactions is rubichan's contract with the GitHub Actions runner:
// what a run may print on a runner's log, and the job summary it leaves.
//
// The runner reads every line a step prints and acts on the ones that,
// after leading white space, begin with "::" (or the older "##["): they
// set variables, mask values, add annotations or stop command processing.
// The text a model or a tool produces must never be such a line. A
// [Writer] neutralises them, also when the line start falls across two
// writes, by putting a backslash in front ("\::set-env …" is shown as
// written and not acted on); only the commands rubichan itself means
// ([Writer.Command], [Writer.StopCommands]) reach the runner. Machine
// output (JSON lines) goes through a [JSONWriter] instead, which writes
// the "[" of every "##[" as the escape "\u005b": the JSON decodes to the
// same text, and no line holds a command.
//
// [Summary] is the Markdown a run appends to $GITHUB_STEP_SUMMARY: the
// task, the outcome and exit code, the tally, the tool calls with their
// decisions, the files changed, the patch, the verification and the
// session file. Everything in it that comes from the model, a tool or the
// workspace is escaped, so it renders as text.
//
// The package knows nothing of the runner of rubichan: the run package
// fills a [Summary] from its events.
//
// It is a format leaf: the sinks and the command layer import it.
package ghactions
