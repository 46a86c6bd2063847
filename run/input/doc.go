// Package input builds the first user message of a run and its system
// prompt: the prompt from the arguments or a file, standard input (a pipe
// or a file only, capped, a big one spilled to a private file), the
// context files (AGENTS.md and its kin) and the prompt's own text.
//
// Reading is synchronous ([Read]) or bounded by a context ([ReadContext],
// which reads aside and removes a spill it abandons). An [Input] belongs to
// one run; its Close removes the spill. There is no mutable package state.
//
// It imports only the format leaves, llm, run/exit (its mistakes are usage
// errors, exit 2) and the standard library; the harness imports it.
package input
