// Package harness is the composition root of one run: from the settings
// the command layer resolved it builds everything a run needs — the agent,
// the workspace, the policy's approver, the sandbox, traffic recording and
// replay, the tools and MCP servers, the sub-query host, the hooks, the
// session log, the patch workspace, the input and the resume plan — and
// after the run it finishes it (patch, summary, pending report, cassette)
// and closes what it opened.
//
// It imports the engine, the sinks, the hooks, the input and the format
// leaves; it never imports a front end or run. The command layer and the
// front ends import it. A Harness is not safe for concurrent use.
package harness
