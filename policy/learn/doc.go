// Package learn derives a policy file from the tool calls a run made: the
// smallest set of rules that allows the calls that are safe to allow,
// generalised only where the policy's models of programs' options make
// that safe, each rule with [[test]] self-tests, and a comment for every
// call it leaves out and why.
//
// It knows nothing of sessions: the caller (the run package's `rubichan
// policy learn`) reads them and hands over [Call] values. It imports only
// [policy] and the standard library; the run package may import it, and
// policy, llm and toolkit may not.
package learn
