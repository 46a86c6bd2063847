package sink

import (
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/session"
)

// SubqueryEvent is the machine-output event of a sub-query.
func SubqueryEvent(q *agent.SubqueryInfo) events.Subquery {
	ev := events.Subquery{Model: q.Model, Status: q.Status, Usage: UsageEvent(q.Usage),
		DurationMS: q.Duration.Milliseconds(), InputBytes: q.InputBytes, Error: q.Error}
	if q.CostKnown {
		c := q.CostUSD
		ev.CostUSD = &c
	}
	return ev
}

// SubqueryLine fills the session line of a sub-query: its model, status,
// tokens, cost and duration (not its text: a fan-out of thousands would
// double the log for answers the model already read).
func SubqueryLine(l *session.Line, q *agent.SubqueryInfo) {
	l.Type, l.Model, l.Status = "subquery", q.Model, q.Status
	l.DurationMS = session.Ptr(q.Duration.Milliseconds())
	u := q.Usage
	l.Usage = &session.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheCreationTokens}
	if q.CostKnown {
		l.CostUSD = session.Ptr(q.CostUSD)
	}
	l.Error = q.Error
}

// subquery shows a sub-query on stderr: a refusal or a failure always
// (the command that sent it shows it too), every one with --verbose.
func (s *Activity) subquery(q *agent.SubqueryInfo) {
	p := s.pal
	switch {
	case q.Status != agent.SubqueryOK:
		s.line("%s", p.warn.Sprintf("  sub-query %s: %s", q.Status, agent.Clip(q.Error, 200)))
	case s.verbose:
		s.line("%s", p.dim.Sprintf("  sub-query %s · %s in / %s out tokens · %s", agent.Clip(q.Model, 60),
			FormatTokens(int64(q.Usage.InputTokens+q.Usage.CacheReadTokens+q.Usage.CacheCreationTokens)),
			FormatTokens(int64(q.Usage.OutputTokens)), formatDuration(q.Duration)))
	}
}
