// Package doctor is `rubichan doctor`: the checks of a setup before a paid
// run (configuration, key, provider, policy and its self-tests, sandbox,
// MCP servers, session directory), reported as text or JSON.
//
// It imports the harness and the format leaves; it does not import
// another front end or run. Only the command layer imports it.
package doctor
