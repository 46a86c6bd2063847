package hooks

import (
	"encoding/json"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// ToolInput returns the tool_input a hook gets for a call: see
// [agent.HookInput], which the engine calls to make it.
func ToolInput(input json.RawMessage, eff toolkit.Effects) json.RawMessage {
	return agent.HookInput(input, eff)
}
