// Package results aggregates a fan-out: it reads the result JSON (the
// `--output json` object, or the last result event of `--output
// stream-json`) of every result.json beneath a directory and sums them up
// as one table and one JSON summary — tasks, outcomes by exit code,
// tokens, cost and patches — for `rubichan results DIR`.
//
// It is a format leaf: it imports the event schema's types (run/events)
// and the standard library; only the command layer (package run) imports
// it.
package results
