package run

import "github.com/rubichan/rubichan/run/agent"

// Transitional shims (issue 31, steps 1b and 2a): the event types, the
// redactor, the text helpers and the budget moved to [agent]; these
// names keep the files that have not moved yet compiling unchanged. The
// last step of the split deletes this file.

// Events and their payloads.
type (
	Event          = agent.Event
	EventKind      = agent.EventKind
	HookInfo       = agent.HookInfo
	VerifyInfo     = agent.VerifyInfo
	PatchInfo      = agent.PatchInfo
	ToolCallInfo   = agent.ToolCallInfo
	ToolResultInfo = agent.ToolResultInfo
	DenialInfo     = agent.DenialInfo
	AllowInfo      = agent.AllowInfo
	RetryInfo      = agent.RetryInfo
	Summary        = agent.Summary
	CompactionInfo = agent.CompactionInfo
	SubqueryInfo   = agent.SubqueryInfo
)

// The event kinds.
const (
	EventNotice        = agent.EventNotice
	EventTurnStart     = agent.EventTurnStart
	EventTextDelta     = agent.EventTextDelta
	EventMessageDone   = agent.EventMessageDone
	EventStreamCut     = agent.EventStreamCut
	EventRetry         = agent.EventRetry
	EventToolCall      = agent.EventToolCall
	EventToolDenied    = agent.EventToolDenied
	EventToolResult    = agent.EventToolResult
	EventLimit         = agent.EventLimit
	EventError         = agent.EventError
	EventTurnDone      = agent.EventTurnDone
	EventToolAllowed   = agent.EventToolAllowed
	EventThinkingDelta = agent.EventThinkingDelta
	EventHook          = agent.EventHook
	EventCompaction    = agent.EventCompaction
	EventVerifyStart   = agent.EventVerifyStart
	EventVerify        = agent.EventVerify
	EventHistory       = agent.EventHistory
	EventSubquery      = agent.EventSubquery
)

// The statuses of a [SubqueryInfo].
const (
	subqueryOK      = agent.SubqueryOK
	subqueryRefused = agent.SubqueryRefused
	subqueryError   = agent.SubqueryError
)

// The redactor.
type redactor = agent.Redactor

// The budget and its errors.
type (
	Budget      = agent.Budget
	ModelSpend  = agent.ModelSpend
	budgetError = agent.BudgetError
)

// Text helpers.
func clip(s string, max int) string { return agent.Clip(s, max) }
func shown(s string) string         { return agent.Shown(s) }
func actsOnTerminal(r rune) bool    { return agent.ActsOnTerminal(r) }
