// Package events is rubichan's machine output: the events of
// `rubichan exec --output stream-json` (one JSON object per line) and the
// result object of `--output json`, with the JSON Schema that describes
// them.
//
// The events are a contract with the programs that read them. Every event
// carries [SchemaVersion]; within one schema version fields are only
// added, never renamed, removed or given another meaning, and consumers
// ignore event types they do not know. The schema (draft 2020-12, one
// definition per event type, no additional properties) is embedded in the
// binary ([Schema]) and kept in the repository as docs/events.schema.json.
//
// The package knows nothing of the runner: the runner translates its own
// events into the types here and writes them with an [Encoder].
//
// It is a format leaf: the sinks, run/exit, run/results, the harness and the
// command layer import it; never the engine.
package events
