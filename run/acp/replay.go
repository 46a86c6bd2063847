package acp

import (
	"encoding/json"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
)

// replay sends a loaded conversation as updates, as session/load asks:
// the user's and the agent's messages, the agent's thinking, and each
// tool call with its result.
func (ss *session) replay(history []llm.Message) {
	for _, m := range history {
		for _, b := range m.Content {
			ss.replayBlock(m.Role, b)
		}
	}
}

// replayBlock sends one block of a loaded message.
func (ss *session) replayBlock(role llm.Role, b llm.Block) {
	switch b.Kind {
	case llm.BlockText:
		kind := "agent_message_chunk"
		if role == llm.RoleUser {
			kind = "user_message_chunk"
		}
		ss.chunk(kind, b.Text)
	case llm.BlockThinking:
		ss.chunk("agent_thought_chunk", b.Text)
	case llm.BlockToolUse:
		info := &agent.ToolCallInfo{ID: b.ID, Name: b.Name, Summary: inputSummary(b.Input), Input: json.RawMessage(b.Input)}
		ss.update(ss.callUpdate(info, &callState{path: inputPath(b.Input)}, statusPending))
	case llm.BlockToolResult:
		u := toolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: b.ToolUseID, Status: statusCompleted}
		if b.IsError {
			u.Status = statusFailed
		}
		if b.Content != "" {
			u.Content = []toolCallContent{textContent(b.Content)}
		}
		ss.update(u)
	}
}

// inputSummary is the gist of a loaded call's arguments, as the engine
// shows a live one: its command, path or pattern.
func inputSummary(in json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
	}
	if json.Unmarshal(in, &a) != nil {
		return ""
	}
	switch {
	case a.Command != "":
		return a.Command
	case a.Path != "":
		return a.Path
	}
	return a.Pattern
}
