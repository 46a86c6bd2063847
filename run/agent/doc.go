// Package agent is rubichan's turn loop: the engine every front end runs.
//
// It owns one conversation with a model and takes it to its end: it
// streams a request, turns the model's tool calls into verdicts through the
// seams its caller gives it (Judge, Asker, Hooks, Verifier), runs the
// allowed calls, gives every call exactly one result, and asks again until
// the model answers without tool calls or a limit is reached. Around it sit
// the pieces the loop needs and nothing else: deferral of calls for a
// person, the Budget, compaction and the token estimate, Complete (one
// request with retries), the Event stream and its kinds, the typed errors
// a run ends with, and the redactor.
//
// The engine knows no flags, exit codes, output formats, files, terminals
// or policy language: it imports only llm, toolkit and the standard
// library (run/arch_test.go holds it to that). Any package of rubichan may
// import it; the command layer, the harness, the sinks and the front ends
// do.
//
// Concurrency: an Agent is not safe for concurrent use. A Budget and a
// Redactor are safe for concurrent use.
package agent
