package run

import (

	// Named so because run still has a type input, an alias of
	// [inputpkg.Input] below, for the files that have not moved yet.
	inputpkg "github.com/rubichan/rubichan/run/input"
)

// Transitional names for the first user message and the system prompt,
// now in run/input, so the files of run that have not moved yet compile
// unchanged. Phase 4 of the engine split deletes this file.

// promptOptions is [input.PromptOptions].
type promptOptions = inputpkg.PromptOptions

// systemPrompt is [input.SystemPrompt].
func systemPrompt(opt promptOptions) (string, error) { return inputpkg.SystemPrompt(opt) }
