// Package exit is rubichan's exit-code contract: the codes of DESIGN's
// table, the error types that carry one, and Code, which maps an error —
// the engine's typed errors included — to the code the process ends with
// and to the error type machine output names. Nobody parses message text
// to find a code.
//
// It may import run/agent (to know the engine's errors) and the standard
// library; the command layer, the harness, the sinks and the front ends
// import it. The format leaves (config, events, session, cassette, patch,
// ghactions, subquery) do not.
package exit
