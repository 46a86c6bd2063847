// Package structured owns structured output (--json-schema): loading and
// compiling the user's JSON Schema (draft 2020-12) before any request,
// deciding whether a provider's strict mode can take it natively, the
// synthetic final tool for providers that cannot (its input schema, the
// wrapping of a non-object root), and the check of the final answer that
// sends the model back with the validation errors — an [agent.Verifier].
//
// The harness and the command layer import it; the engine (run/agent)
// does not: it only sees the Verifier, the final tool's spec and the
// native format through agent.Options.
package structured
