// Package mcp offers the tools of Model Context Protocol servers to the
// model, through the official Go SDK (github.com/modelcontextprotocol/go-sdk)
// over stdio or streamable HTTP.
//
// [Start] starts every configured server concurrently and lists its tools;
// each server ends ready, failed or timed out ([Status]). The ready
// servers' tools are [toolkit.Tool]s named mcp__SERVER__TOOL whose
// [toolkit.Effects] have kind [toolkit.EffectMCP], so the runner's policy
// judges them by "SERVER/TOOL". A stdio server runs in its own process
// group with the bash tool's scrubbed environment plus its configured
// env, and [Manager.Close] stops the group (SIGTERM, then SIGKILL).
//
// The package knows nothing of the runner, the policy or the model APIs.
//
// The harness, doctor and the command layer (`rubichan mcp`) import it.
package mcp
