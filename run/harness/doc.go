// Package harness is the composition root of one run: from the settings
// the command layer resolved it builds what a run needs — the policy's
// approver, the sandbox decision, traffic recording and replay, the tools
// and MCP servers, the sub-query host, the hooks, the --verify verifier,
// the session plan, the patch workspace — and after the run it finishes it
// (Finish: the verdict of --verify, the patch, the summary).
//
// [Open] assembles one run from its [Settings] (in the same order for a
// headless run and for line mode) and returns the [Run], which [Run.Close]
// releases; [Settings] views (derived.go) are computed from the settings,
// never stored back: nothing changes Settings once the command layer made
// it, and the run's root after --patch is [Run.WorkDir].
//
// It imports the engine, the sinks, the hooks, the input and the format
// leaves; it never imports a front end or run. The command layer and the
// front ends import it. Its values are not safe for concurrent use unless
// their doc says so.
package harness
