// Package toolkit holds the tools the model calls — read, write, edit, grep,
// glob, ls and bash — and the workspace they are confined to.
//
// Tools know nothing of approval: each one describes what a call would touch
// ([Tool.Effects]) so the runner can ask the policy first, and then runs it
// ([Tool.Run]). Problems the model can fix are error results, not Go errors.
//
// Every file access goes through a [Workspace]: the workspace root opened
// with [os.Root], plus extra roots the runner adds. [Workspace.Resolve] is
// the one path resolution the file tools use; paths that leave the roots,
// through ".." or a symlink, are refused, and in-root symlinks are reported
// with the path they resolve to. [Tools] builds every tool in one list;
// [SafeRun] runs one and turns a panic into an error result. Output caps
// live in caps.go.
//
// The engine (run/agent) imports it for [Tool]; the harness, the hooks, the
// plug-ins, the front ends and the command layer import it too. It imports
// neither llm nor policy (DESIGN's rule).
package toolkit
