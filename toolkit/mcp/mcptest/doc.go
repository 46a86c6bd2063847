// Package mcptest is an MCP server for tests and benchmarks, built with the
// go-sdk: in-process over its in-memory transports, or over stdio in a
// helper process. Only tests import it.
package mcptest
