package session

import "github.com/rubichan/rubichan/llm"

// SummaryPreface opens the user message that carries a compaction's
// summary, in the running conversation and in the one rebuilt on resume.
const SummaryPreface = "[Summary of the earlier conversation, written by rubichan when it was compacted to fit the context window. The task is the first message; the most recent turns follow this summary unchanged.]\n\n"

// compact applies a "compaction" line to the conversation read so far, as
// the run did: the first message, the summary, then the last messages_kept
// messages. A line that does not fit the conversation (no summary, no
// count, a kept tail that would not start at an assistant message, as the
// run always cuts it) is left out, and the whole conversation is kept: a
// resumed run then compacts again if it needs to, which loses nothing.
func (s *Session) compact(l Line) {
	if l.Text == nil || *l.Text == "" || l.MessagesKept == nil {
		return
	}
	kept, n := *l.MessagesKept, len(s.Messages)
	if kept < 0 || 1+kept > n || (kept > 0 && s.Messages[n-kept].Role != llm.RoleAssistant) {
		return
	}
	msgs := make([]Message, 0, 2+kept)
	msgs = append(msgs, s.Messages[0], Message{Message: llm.Message{Role: llm.RoleUser,
		Content: []llm.Block{llm.TextBlock(SummaryPreface + *l.Text)}}, Summary: true})
	msgs = append(msgs, s.Messages[n-kept:]...)
	s.Messages = msgs
	s.Compactions++
}
