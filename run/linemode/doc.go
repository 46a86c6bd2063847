// Package linemode is rubichan's line mode (`rubichan chat`, `rubichan
// -i`): the chat's loop of lines, each one run of the agent over one
// conversation; its /commands; the line editor (history, bracketed
// paste, the prompt kept under what the chat writes); the approval
// question asked on the terminal; and the hand-over of SIGINT
// ([Interrupts]) so that Ctrl-C stops a run, not the chat.
//
// It owns no assembly: the command layer (package run) gives [Run] its
// sinks and the run's stack through [Options.NewSinks] and
// [Options.Open], built as a headless run builds them, and line mode
// drives the engine only through [agent.Agent]'s methods (Resume, Reset,
// SetModel, CompactNow), never its fields.
//
// Concurrency: a chat runs on one goroutine. [Interrupts] is safe for
// concurrent use (the signal goroutine delivers to it). The sinks may
// call [Options.NewSinks]'s observe from the emitting goroutines; the
// chat reads what it kept only between runs.
//
// Who may import it: package run (the command layer) only. It imports
// the engine (run/agent), the harness, the sinks and run/exit, never
// package run nor another front end (run/arch_test.go).
package linemode
