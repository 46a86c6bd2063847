// Package hooks runs the [[hooks]] of the configuration around tool calls
// and at the end of a run, and implements the engine's Hooks seam with
// them: what a hook is given on its stdin, how its answer is read, and how
// a failing hook fails closed.
//
// It imports run/agent, toolkit and the format leaves; it never imports
// run/harness or a front end. The harness imports it. A Runner is not
// safe for concurrent use.
package hooks
