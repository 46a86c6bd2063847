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
// (SO_PEERCRED): a descendant of this process, and not of a sub-query in
// flight (depth 1). Every request must also carry the server's token
// ([Server.Token], passed as [TokenEnv] to the commands that may ask
// only), which keeps out the run's other descendants. The token comes
// first, as the connection's hello line: the server reads nothing more
// before it has checked it, gives a connection a few seconds and a few
// hundred bytes to send it, and waits for the hellos of a bounded number
// of connections at once.
//
// The package knows nothing of the runner, the model client or the
// policy: the runner hands the server a [Handler].
//
// It is a format leaf: the harness (the server), `rubichan query`
// (run/query, the client) and the command layer import it.
package subquery
