// Package linemode is the line-mode front end (`rubichan -i`, `rubichan
// chat`): the line loop, its /commands, the line editor and its history,
// and the asker that puts a policy's "ask" to the person at the terminal.
//
// It imports the harness, the sinks and the engine; it does not import
// another front end or run. Only the command layer imports it.
package linemode
