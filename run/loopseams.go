package run

import (
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/hooks"
)

// Transitional adapters (issue 31, steps 2c and 3a): the loop calls its
// caller through the seams of [agent] (Hooks).

// asHooks returns r as the loop's hooks ([hooks.Runner] implements
// [agent.Hooks]); a nil interface when there are none, so that the loop
// skips the work done only for hooks.
func asHooks(r *hooks.Runner) agent.Hooks {
	if r == nil {
		return nil
	}
	return r
}
