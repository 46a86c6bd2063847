package llm

// EventKind is the type of an [Event].
type EventKind uint8

// The kinds of event a [Stream] yields.
const (
	// EventText carries a piece of the answer's text in Event.Text.
	EventText EventKind = iota + 1
	// EventThinking carries a piece of the model's reasoning in Event.Text.
	EventThinking
	// EventToolUse carries one complete tool call in Event.ToolUse. Its
	// Input is as streamed and may be invalid JSON (see [Block]).
	EventToolUse
	// EventUsage carries the usage counted so far for this call in
	// Event.Usage (cumulative, not a delta).
	EventUsage
	// EventStop is the last event of a successful stream; Event.StopReason
	// says why the model stopped and Event.Usage holds the final usage.
	EventStop
	// EventServerTool carries one complete block of a tool the provider
	// ran itself, a call or its result, in Event.ToolUse (see
	// [BlockServerToolUse]). It is for display: the caller runs nothing.
	EventServerTool
)

// String returns the kind's name, such as "text" or "tool_use".
func (k EventKind) String() string {
	switch k {
	case EventText:
		return "text"
	case EventThinking:
		return "thinking"
	case EventToolUse:
		return "tool_use"
	case EventUsage:
		return "usage"
	case EventStop:
		return "stop"
	case EventServerTool:
		return "server_tool"
	}
	return "unknown"
}

// Event is one step of a streamed model answer. Kind says which fields are
// set.
type Event struct {
	Kind       EventKind
	Text       string     // EventText, EventThinking
	ToolUse    Block      // EventToolUse, EventServerTool
	Usage      Usage      // EventUsage, EventStop
	StopReason StopReason // EventStop
	// ResponseID and ResponseModel are, for EventStop, the provider's id
	// of the response and the model that made it, as the stream said
	// ("" when it did not).
	ResponseID, ResponseModel string
}
