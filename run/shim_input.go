package run

import (
	"context"
	"io"

	// Named so because run still has a type input, an alias of
	// [inputpkg.Input] below, for the files that have not moved yet.
	inputpkg "github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/session"
)

// Transitional names for the first user message and the system prompt,
// now in run/input, so the files of run that have not moved yet compile
// unchanged. Phase 4 of the engine split deletes this file.

// inputOptions is [input.Options].
type inputOptions = inputpkg.Options

// input is [input.Input].
type input = inputpkg.Input

// spill is [input.Spill].
type spill = inputpkg.Spill

// readInputContext is [input.ReadContext].
func readInputContext(ctx context.Context, stdin io.Reader, opt inputOptions) (*input, error) {
	return inputpkg.ReadContext(ctx, stdin, opt)
}

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
