// Package harness is the composition root of one run: from the settings
// the command layer resolved it builds what a run needs — the policy's
// approver, the sandbox decision, traffic recording and replay, the tools
// and MCP servers, the sub-query host, the hooks, the --verify verifier,
// the session plan, the patch workspace — and after the run it finishes it
// (Finish: the verdict of --verify, the patch, the summary).
//
// The assembly itself (opening one run's stack from [Settings] and closing
// it) still lives in the command layer's stack.go while the engine split
// goes on; it moves here as Open and Close.
//
// It imports the engine, the sinks, the hooks, the input and the format
// leaves; it never imports a front end or run. The command layer and the
// front ends import it. Its values are not safe for concurrent use unless
// their doc says so.
package harness
