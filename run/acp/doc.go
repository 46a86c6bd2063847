// Package acp is the `rubichan acp` front end: the engine behind an editor,
// through the Agent Client Protocol (ACP v1, JSON-RPC 2.0, one message a
// line on standard input and output). It owns the wire (the JSON-RPC
// framing and the ACP types it sends and reads), the protocol's methods
// (initialize, authenticate, session/new, session/prompt, session/cancel,
// session/close), the mapping of the engine's events to session/update
// notifications, and the policy's "ask" as session/request_permission.
//
// The wire types are its own (types.go), checked by the tests against the
// ACP v1 JSON Schema of the npm package @agentclientprotocol/sdk, rather
// than github.com/coder/acp-go-sdk: that module (v0.13.0, Apache-2.0, no
// dependencies) is pre-1.0 and about 12,900 lines, mostly generated, for
// the few hundred lines of types rubichan sends and reads, and it is not
// on the project's list of approved dependencies.
//
// It does not assemble a run: the command layer hands it an [Opener] that
// opens one session's engine in a workspace (the harness does the work).
// It imports the engine, the harness and the policy; it never imports
// another front end or run. Only the command layer imports it.
package acp
