// Package doctor is `rubichan doctor`: the checks of a setup before a paid
// run (configuration, key, provider, policy and its self-tests, sandbox,
// MCP servers, session directory), reported as text or JSON.
//
// [Run] takes its [Options] from the command layer, which reads the flags
// and loads the configuration; starting the MCP servers as a run would
// (its sandbox and reaper) is the caller's [Options.ProbeMCP]. Run holds
// no state between calls; a [Report] is a plain value.
//
// It imports the harness, sink (terminal detection, escaped JSON), agent
// (Shown, the escaping of untrusted text), exit and the format leaves; it
// does not import another front end or run. Only the command layer
// imports it.
package doctor
