// Package session is the session file of rubichan runs: its line format,
// the append-only writer, the loader that rebuilds a conversation for a
// resume, and the store of sessions in a state directory.
//
// A session is one JSONL file, only ever appended to, one JSON object per
// line written with one write. Its first line is the header ("session",
// with the format version [Format]); every run appended to it starts with
// a "run" line and ends with an "end" line. The lines "system", "user" and
// "assistant" hold the conversation exactly as the model was sent it; the
// other lines (tool calls, decisions, tool results, retries, limits) are
// the record a person reads. docs/sessions.md is the contract.
//
// Nothing in this package knows the runner's events or the providers:
// the runner turns its events into [Line]s, and messages cross as
// provider-neutral [llm.Message]s.
//
// It is a format leaf: the harness, the sinks (the session log), run/input,
// run/learnlog, the front ends linemode and doctor and the command layer
// import it; the engine's code never does (its tests do).
package session
