package run

import (
	// Named so because run's type input (input.go) has not moved yet.
	inputpkg "github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/session"
)

// Transitional names for the system prompt, now in run/input, so the files
// of run that have not moved yet compile unchanged. Phase 4 of the engine
// split deletes this file.

// promptOptions is [input.PromptOptions].
type promptOptions = inputpkg.PromptOptions

// systemPrompt is [input.SystemPrompt].
func systemPrompt(opt promptOptions) (string, error) { return inputpkg.SystemPrompt(opt) }

// systemPromptParts is [input.SystemPromptParts].
func systemPromptParts(opt promptOptions) ([]session.PromptPart, error) {
	return inputpkg.SystemPromptParts(opt)
}

// joinParts is [input.JoinParts].
func joinParts(parts []session.PromptPart) string { return inputpkg.JoinParts(parts) }
