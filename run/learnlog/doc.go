// Package learnlog reads the tool calls of session logs (run/session's
// format) as the calls a policy is learned from ([learn.Call]): each call
// with its tool class, its command, path or MCP name, and whether it ran,
// was denied or was left pending.
//
// It imports run/session and policy; the run package's `rubichan policy
// learn` imports it. It knows nothing of the engine.
package learnlog
