// Package input builds the first user message of a run and its system
// prompt: the prompt from the arguments or a file, standard input (a pipe
// or a file only, capped, a big one spilled to a private file), the
// context files (AGENTS.md and its kin) and the prompt's own text.
//
// It imports only the format leaves, llm and the standard library; the
// harness imports it.
package input
