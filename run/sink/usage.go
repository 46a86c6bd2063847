package sink

import (
	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/events"
)

// UsageEvent is a request's token usage as the JSON events report it.
func UsageEvent(u llm.Usage) events.Usage {
	return events.Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens),
		CacheReadTokens: int64(u.CacheReadTokens), CacheWriteTokens: int64(u.CacheCreationTokens)}
}
