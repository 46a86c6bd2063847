// Package subquery is the wire format and the transport of sub-queries:
// one-shot model requests that the commands of a run (`rubichan query`,
// started by the bash tool) send to the run that started them, over a Unix
// socket in the run's private directory, instead of to the provider.
//
// The parent keeps the API key and the provider; a child sends a
// [Request] (one JSON object on one line) and reads a [Response] (one
// line) back, any number of times on one connection. The parent does the
// model call, counts it against the run's limits and records it.
//
// Who may connect: the socket lives in a directory only the run's user
// can enter (0700), and on Linux the server checks the peer's process
// (SO_PEERCRED) against [Server.Authorize], which the runner sets to "a
// descendant of this process, and not of a sub-query in flight" (depth 1).
//
// The package knows nothing of the runner, the model client or the
// policy: the runner hands the server a [Handler].
package subquery
