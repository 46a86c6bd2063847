package sink

import (
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/session"
)

// CompactionEvent is the machine-output event of a compaction.
func CompactionEvent(c *agent.CompactionInfo) events.Compaction {
	ev := events.Compaction{Reason: c.Reason, TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter,
		TurnsSummarised: c.TurnsSummarised, MessagesSummarised: c.MessagesSummarised, Usage: UsageEvent(c.Usage)}
	if c.CostKnown {
		cost := c.CostUSD
		ev.CostUSD = &cost
	}
	return ev
}

// CompactionLine fills the session line of a compaction: the summary
// that replaced the older part of the conversation, so that a resumed
// session can restore the compacted conversation.
func CompactionLine(l *session.Line, c *agent.CompactionInfo) {
	l.Type, l.Reason, l.Text = "compaction", c.Reason, session.Ptr(c.Summary)
	l.TokensBefore, l.TokensAfter = session.Ptr(c.TokensBefore), session.Ptr(c.TokensAfter)
	l.TurnsSummarised, l.MessagesSummarised = session.Ptr(c.TurnsSummarised), session.Ptr(c.MessagesSummarised)
	l.MessagesKept = session.Ptr(c.MessagesKept)
	u := c.Usage
	l.Usage = &session.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheCreationTokens}
}
