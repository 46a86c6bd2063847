// Package query is the `rubichan query` front end: one model request
// without tools, asked through the running agent's sub-query socket or
// directly, and its fan-outs (--split, --batch).
//
// It imports the harness (configuration, provider client, secrets, the
// sub-query bounds and message), the engine's Complete and redactor, the
// sub-query wire, run/exit, and input's and sink's checks of the standard
// streams; it does not import another front end or run. Only the command
// layer imports it: it parses the flags and calls [Run].
package query
