// Package query is the `rubichan query` front end: one model request
// without tools, asked through the running agent's sub-query socket or
// directly, and its fan-outs (--split, --batch).
//
// It imports the harness's provider client, the engine's Complete and the
// sub-query wire; it does not import another front end or run. Only the
// command layer imports it.
package query
