// Package toolkit holds the tools the model calls — read, write, edit, grep,
// glob, ls and bash — and the workspace they are confined to.
//
// Tools know nothing of approval: each one describes what a call would touch
// ([Tool.Effects]) so the runner can ask the policy first, and then runs it
// ([Tool.Run]). Problems the model can fix are error results, not Go errors.
package toolkit
