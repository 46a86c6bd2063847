package events

import (
	"bytes"
	_ "embed"
)

// schemaJSON is the canonical schema; docs/events.schema.json is a copy a
// test keeps byte-identical.
//
//go:embed events.schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (draft 2020-12) of the events, as
// `rubichan schema events` prints it. The caller owns the returned slice.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// Types lists the event types of this schema version, in the order a run
// produces them.
func Types() []string {
	return []string{"init", "turn_start", "text", "thinking", "message", "tool_call", "policy_decision",
		"hook", "tool_result", "retry", "stream_cut", "compaction", "subquery", "notice", "verify", "result"}
}
