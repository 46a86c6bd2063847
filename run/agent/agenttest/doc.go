// Package agenttest has the helpers the tests of the engine and of its
// callers share: a tool whose effects and results a test chooses, an
// instant clock, a judge, a runner that takes an [agent.Agent]
// through a scripted model, and the cases of a single request with
// retries ([RunAskCases]). It imports only llm, toolkit, the standard
// library and agent.
//
// Only tests import it.
package agenttest
