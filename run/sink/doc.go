// Package sink renders the engine's events: the fan-out that serialises
// them, the text answer on stdout, the activity lines on stderr, the JSON
// formats of run/events, the GitHub Actions output, the session log and
// the outcome of a run.
//
// It imports run/agent, run/exit and the format leaves; it never imports
// run/harness or a front end. The command layer, the harness and the front
// ends import it. The fan-out is safe for concurrent use (the sub-query
// host emits from its own goroutines); each sink behind it is not.
package sink
