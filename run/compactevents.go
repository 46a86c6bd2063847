package run

import "github.com/rubichan/rubichan/run/events"

// compactionEvent is the machine-output event of a compaction.
func compactionEvent(c *CompactionInfo) events.Compaction {
	ev := events.Compaction{Reason: c.Reason, TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter,
		TurnsSummarised: c.TurnsSummarised, MessagesSummarised: c.MessagesSummarised, Usage: usageEvent(c.Usage)}
	if c.CostKnown {
		cost := c.CostUSD
		ev.CostUSD = &cost
	}
	return ev
}

// compactionLine fills the session line of a compaction: the summary
// that replaced the older part of the conversation, so that a resumed
// session can restore the compacted conversation.
func compactionLine(l *sessionLine, c *CompactionInfo) {
	l.Type, l.Reason, l.Text = "compaction", c.Reason, ptr(c.Summary)
	l.TokensBefore, l.TokensAfter = ptr(c.TokensBefore), ptr(c.TokensAfter)
	l.TurnsSummarised, l.MessagesSummarised = ptr(c.TurnsSummarised), ptr(c.MessagesSummarised)
	u := c.Usage
	l.Usage = &usageLine{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheCreationTokens}
}
