package run

import (
	"github.com/rubichan/rubichan/run/agent"
)

// Transitional shims (issue 31, step 2f): the [[hooks]] runner moved to
// [hooks]; these names keep the not-yet-moved files compiling unchanged.
// The loop calls the runner through [agent.Hooks] (see [asHooks]). The
// last step of the split deletes this file.

// The hook decisions, as the hook event's Decision string reports them.
const (
	hookAllow    = string(agent.HookAllow)
	hookDeny     = string(agent.HookDeny)
	hookRewrite  = string(agent.HookRewrite)
	hookAppend   = string(agent.HookAppend)
	hookContinue = string(agent.HookContinue)
	hookFailed   = string(agent.HookFailed)
)
