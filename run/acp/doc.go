// Package acp is the `rubichan acp` front end: the engine behind an editor,
// through the Agent Client Protocol (ACP v1, JSON-RPC 2.0, one message a
// line on standard input and output). It owns the wire (the JSON-RPC
// framing and the ACP types it sends and reads), the protocol's methods
// (initialize, authenticate, session/new, session/prompt, session/cancel,
// session/close), the mapping of the engine's events to session/update
// notifications, and the policy's "ask" as session/request_permission.
//
// It does not assemble a run: the command layer hands it an [Opener] that
// opens one session's engine in a workspace (the harness does the work).
// It imports the engine, the harness and the policy; it never imports
// another front end or run. Only the command layer imports it.
package acp
