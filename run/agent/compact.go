package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rubichan/rubichan/llm"
)

// compactSystem is the system prompt of the summary request.
const compactSystem = `You compact the conversation of a coding agent so that it can go on with its task in a fresh context window. The agent will read your summary instead of the older part of the conversation shown to you; the task (its first message) and the most recent turns are kept as they are.

Write the summary in plain text with these sections:
1. Task: what was asked, in one or two sentences, and any constraints the user gave.
2. Decisions: what was decided and why, including approaches tried and abandoned.
3. Files: every file read, created or changed, with its current state (what was changed, whether the change is complete).
4. Commands: the commands run and what they showed — errors, failing and passing tests, versions — with the exact messages that matter.
5. Left to do: what remains, and the next step.

Be concrete: keep paths, names, numbers and error messages exact. Do not invent anything that is not in the conversation. Do not call tools. Answer with the summary only.`

// Caps on what the summary request shows of each block of the older part:
// it must fit the window itself, and a tool's long output matters for its
// beginning and end.
const (
	transcriptBlockMax = 4 << 10
	transcriptTaskMax  = 8 << 10
)

// compactOn reports whether the Agent compacts.
func (l *Agent) compactOn() bool { return l.cfg.Compact.Window > 0 }

// compactIfNeeded compacts the conversation when the estimate of the next
// request passes the threshold. The estimate is remembered for the
// event.
func (l *Agent) compactIfNeeded(ctx context.Context) error {
	if !l.compactOn() {
		return nil
	}
	est := l.est.estimate(l.messages)
	if est <= l.cfg.Compact.threshold() {
		return nil
	}
	_, err := l.compact(ctx, "threshold", est, int(keepShare*float64(l.cfg.Compact.Window)))
	return err
}

// compact replaces the older part of the conversation by a summary the
// model writes, keeping the first user message and a tail of at least keep
// tokens. It returns false when there was nothing to summarise. The
// summary request is no turn, but its tokens count against the budget.
func (l *Agent) compact(ctx context.Context, reason string, before, keep int) (bool, error) {
	split := l.est.tailSplit(l.messages, keep)
	if split == 0 {
		if !l.noRoomNoted {
			l.noRoomNoted = true
			l.emit(Event{Kind: EventNotice, Text: "the conversation is near the context window but its recent turns are too large to compact"})
		}
		return false, nil
	}
	older := l.messages[1:split]
	var text string
	var used llm.Usage
	err := l.around(ctx, Op{Kind: OpCompaction, Turn: l.turns, Model: l.cfg.Model}, func(ctx context.Context) error {
		var err error
		text, used, err = l.summarise(ctx, older)
		return err
	})
	if err != nil {
		return false, l.requestError(ctx, err)
	}
	kept := make([]llm.Message, 0, 2+len(l.messages)-split)
	kept = append(kept, l.messages[0], llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock(l.cfg.Compact.Preface + text)}})
	kept = append(kept, l.messages[split:]...)
	l.messages = kept
	l.est.reset(l.messages)
	info := &CompactionInfo{Reason: reason, TokensBefore: before, TokensAfter: l.est.estimate(l.messages),
		MessagesSummarised: len(older), MessagesKept: len(l.messages) - 2, Usage: used, Summary: text}
	for _, m := range older {
		if m.Role == llm.RoleAssistant {
			info.TurnsSummarised++
		}
	}
	info.CostUSD, info.CostKnown = l.cfg.Budget.RequestCost(used)
	l.compactions++
	l.emit(Event{Kind: EventCompaction, Turn: l.turns, Compaction: info})
	if err := l.cfg.Budget.AfterSideRequest(used); err != nil {
		return true, l.budgetStop(err)
	}
	return true, nil
}

// summarise asks the model, without tools, to summarise older, retrying
// transient failures as a turn's request does. It returns the summary and
// the usage of the attempt that succeeded; every attempt's usage is added
// to the run's.
func (l *Agent) summarise(ctx context.Context, older []llm.Message) (string, llm.Usage, error) {
	req := llm.Request{Model: l.cfg.Model, System: compactSystem, MaxTokens: l.summaryMaxTokens(),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock(transcript(l.messages[0], older))}}}}
	c, err := Complete(ctx, l.client, req, CompleteOptions{Retry: l.cfg.Retry, Clock: l.cfg.Clock,
		OnAttempt: func(u llm.Usage, _ error) error {
			l.usage = l.usage.Add(u)
			return nil
		},
		OnRetry: func(n llm.RetryNotice) {
			l.emit(Event{Kind: EventRetry, Turn: l.turns, Retry: &RetryInfo{Attempt: n.Attempt, Wait: n.Wait, Reason: retryReason(n.Err), Err: n.Err}})
		},
	})
	if err != nil {
		return "", c.Usage, fmt.Errorf("compaction: %w", err)
	}
	text := strings.TrimSpace(c.Message.Text())
	if text == "" {
		return "", c.Usage, fmt.Errorf("compaction: %w", errors.New("the summary request came back empty"))
	}
	return text, c.Usage, nil
}

// summaryMaxTokens bounds the summary: an eighth of the window, at most
// 4096 tokens and no more than the model writes.
func (l *Agent) summaryMaxTokens() int {
	c := l.cfg.Compact
	n := min(c.Window/8, 4096)
	if c.MaxOutput > 0 {
		n = min(n, c.MaxOutput)
	}
	return max(n, 256)
}

// transcript renders the older part of the conversation as text for the
// summary request: a request without tools cannot carry tool calls and
// results as such, and a long tool output is cut in its middle.
func transcript(first llm.Message, older []llm.Message) string {
	var b strings.Builder
	b.WriteString("<task>\n")
	b.WriteString(clipMiddle(first.Text(), transcriptTaskMax))
	b.WriteString("\n</task>\n\n<conversation>\n")
	for _, m := range older {
		for _, c := range m.Content {
			switch c.Kind {
			case llm.BlockText:
				fmt.Fprintf(&b, "[%s]\n%s\n\n", m.Role, clipMiddle(c.Text, transcriptBlockMax))
			case llm.BlockToolUse:
				fmt.Fprintf(&b, "[tool call %s %s]\n%s\n\n", c.ID, c.Name, clipMiddle(string(c.Input), transcriptBlockMax))
			case llm.BlockToolResult:
				mark := ""
				if c.IsError {
					mark = " (error)"
				}
				fmt.Fprintf(&b, "[tool result %s%s]\n%s\n\n", c.ToolUseID, mark, clipMiddle(c.Content, transcriptBlockMax))
			}
		}
	}
	b.WriteString("</conversation>\n\nSummarise the conversation above as instructed.")
	return b.String()
}

// clipMiddle keeps the beginning and the end of s within max bytes, marking the
// cut; it cuts at rune boundaries.
func clipMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max*2/3, max/3
	for head > 0 && !utf8Start(s[head]) {
		head--
	}
	t := len(s) - tail
	for t < len(s) && !utf8Start(s[t]) {
		t++
	}
	return fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", s[:head], t-head, s[t:])
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
