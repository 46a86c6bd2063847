// Command llmserve serves a scripted model (package llmtest) on 127.0.0.1
// for demos and manual tests of rubichan without a real provider:
//
//	llmserve [-record DIR] [-url-file FILE] SCRIPT.json
//
// It prints the server's base URL on stdout (and to -url-file), then serves
// until SIGINT or SIGTERM. Point rubichan at it with
// ANTHROPIC_BASE_URL=URL (or OPENAI_BASE_URL=URL/v1 and --provider openai).
//
// It is a command: nothing imports it.
package main
