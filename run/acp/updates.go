package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
)

// maxDiffFile bounds the file a diff's old and new text are read from.
const maxDiffFile = 1 << 20

// callState is what a tool_call_update needs of its tool_call: the file a
// write or edit changes, and its text before.
type callState struct {
	path    string  // workspace-relative
	oldText *string // nil: the file did not exist (or could not be read)
	edits   bool
}

// emit maps one engine event to the session/update notifications it
// makes; notices, limits and errors go to the notes (stderr).
func (ss *session) emit(ev agent.Event) {
	switch ev.Kind {
	case agent.EventTextDelta:
		ss.chunk("agent_message_chunk", ev.Text)
	case agent.EventThinkingDelta:
		ss.chunk("agent_thought_chunk", ev.Text)
	case agent.EventMessageDone:
		ss.mu.Lock()
		ss.lastRun = ev.Stop
		if ev.Usage != nil {
			u := ev.Usage
			ss.used = int64(u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens + u.OutputTokens)
		}
		ss.mu.Unlock()
	case agent.EventToolCall:
		ss.toolCall(ev.Tool)
	case agent.EventToolAllowed:
		ss.update(toolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: ev.Tool.ID, Status: statusInProgress})
	case agent.EventToolDenied:
		ss.update(toolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: ev.Tool.ID, Status: statusFailed,
			Content: []toolCallContent{textContent(denialText(ev.Denial))}})
	case agent.EventToolResult:
		ss.toolResult(ev.Tool, ev.Result)
	case agent.EventLimit:
		// The person sees why the turn ended; stderr has it too.
		ss.chunk("agent_message_chunk", "\n\n[rubichan: "+ev.Text+"]")
	}
}

// note writes a line on the notes (stderr).
func (ss *session) note(s string) {
	fmt.Fprintf(ss.srv.opt.Notes, "rubichan acp: %s\n", strings.TrimRight(s, "\n"))
}

// chunk sends a piece of the agent's message or thought.
func (ss *session) chunk(kind, text string) {
	if text == "" || ss.id == "" {
		return
	}
	ss.update(chunkUpdate{SessionUpdate: kind, Content: contentBlock{Type: "text", Text: text}})
}

func textContent(s string) toolCallContent {
	return toolCallContent{Type: "content", Content: &contentBlock{Type: "text", Text: s}}
}

// denialText is what the editor shows of a refusal: the rule, the fact
// and the reason.
func denialText(d *agent.DenialInfo) string {
	if d == nil {
		return "refused"
	}
	s := "refused by " + d.Rule + ": " + d.Fact
	if d.Reason != "" {
		s += " (" + d.Reason + ")"
	}
	return s
}

// toolCall reports a new call as pending, with its kind and the file it
// touches; a write or edit's file is read first, for the diff.
func (ss *session) toolCall(t *agent.ToolCallInfo) {
	if t == nil || ss.id == "" {
		return
	}
	st := &callState{path: inputPath(t.Input), edits: t.Name == "write" || t.Name == "edit"}
	if st.edits && st.path != "" {
		st.oldText = ss.readFile(st.path)
	}
	ss.mu.Lock()
	if ss.calls != nil {
		ss.calls[t.ID] = st
	}
	ss.mu.Unlock()
	ss.update(ss.callUpdate(t, st, statusPending))
}

// callUpdate is the tool_call update of t.
func (ss *session) callUpdate(t *agent.ToolCallInfo, st *callState, status string) toolCallUpdate {
	u := toolCallUpdate{SessionUpdate: "tool_call", ToolCallID: t.ID, Title: callTitle(t), Kind: toolKind(t.Name),
		Status: status, RawInput: t.Input}
	if st.path != "" {
		u.Locations = []location{{Path: ss.abs(st.path)}}
	}
	if len(u.RawInput) == 0 || !json.Valid(u.RawInput) {
		u.RawInput = nil
	}
	return u
}

// callTitle is what the editor shows of a call: the tool and the gist of
// its arguments.
func callTitle(t *agent.ToolCallInfo) string {
	if t.Summary == "" {
		return t.Name
	}
	return t.Name + ": " + t.Summary
}

// toolResult reports a finished call: completed or failed, what the
// model sees, and for an edit the file's change.
func (ss *session) toolResult(t *agent.ToolCallInfo, r *agent.ToolResultInfo) {
	if t == nil || r == nil || ss.id == "" || r.NotRun {
		return // a refused call's failure was sent with its denial
	}
	u := toolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: t.ID, Status: statusCompleted}
	if r.IsError {
		u.Status = statusFailed
	}
	ss.mu.Lock()
	st := ss.calls[t.ID]
	ss.mu.Unlock()
	if st != nil && st.edits && len(r.Changed) > 0 && !r.IsError {
		if nt := ss.readFile(st.path); nt != nil {
			u.Content = append(u.Content, toolCallContent{Type: "diff", Path: ss.abs(st.path), OldText: st.oldText, NewText: nt})
		}
	}
	if r.Content != "" {
		u.Content = append(u.Content, textContent(r.Content))
	}
	ss.update(u)
}

// abs is the absolute path of a workspace path.
func (ss *session) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(ss.cwd, p)
}

// readFile reads a workspace file for a diff, within the workspace (no
// link leads out) and up to maxDiffFile; nil when it cannot.
func (ss *session) readFile(p string) *string {
	rel := p
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(ss.cwd, p)
		if err != nil {
			return nil
		}
		rel = r
	}
	root, err := os.OpenRoot(ss.cwd)
	if err != nil {
		return nil
	}
	defer root.Close()
	if fi, err := root.Stat(rel); err != nil || fi.Size() > maxDiffFile {
		return nil
	}
	b, err := root.ReadFile(rel)
	if err != nil {
		return nil
	}
	s := string(b)
	return &s
}

// inputPath is the "path" argument of a call, "" without one.
func inputPath(in json.RawMessage) string {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(in, &a) != nil {
		return ""
	}
	return a.Path
}

// toolKind is the ACP kind of a tool: one of the spec's list.
func toolKind(name string) string {
	switch name {
	case "read", "ls":
		return "read"
	case "write", "edit":
		return "edit"
	case "bash":
		return "execute"
	case "grep", "glob":
		return "search"
	}
	return "other"
}
