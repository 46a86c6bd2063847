// Package acptest is a scripted ACP client for the tests of `rubichan acp`:
// it talks JSON-RPC over pipes, answers permission requests as a test
// tells it, and validates every message the agent sends against the ACP
// v1 JSON Schema of the npm package @agentclientprotocol/sdk (installed
// in testdata/acp by `npm ci --prefix testdata/acp`; make test does it).
// Only tests import it.
package acptest
