// Package cassette records the HTTP exchanges of a run with the model
// provider into a file (a cassette, JSON lines) and replays them later
// through an in-process [net/http.RoundTripper], with no network and no
// API key, so that everything around the model — SSE parsing, the turn
// loop, tools, policy, output, sessions — runs for real against the same
// answers.
//
// [Create] returns a [*Recorder] that wraps the real transport; [Load]
// reads a cassette and [Cassette.Replayer] serves it back. A replayed
// request that differs from the recorded one, once the volatile parts
// (workspace path, date, platform, ids) are set aside, is refused with a
// [*DivergenceError] naming the request and the first difference as a
// JSON path. The format is documented in docs/cassettes.md.
//
// The package knows nothing of providers or of the runner: it sees bytes,
// headers and JSON.
//
// It is a format leaf: it imports nothing of rubichan's, and only the
// harness (record and replay) and the command layer import it (and the
// engine's tests, which replay cassettes).
package cassette
