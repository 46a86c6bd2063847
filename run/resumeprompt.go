package run

import "github.com/rubichan/rubichan/llm"

// continuePrompt is the user message of a resumed run given no prompt
// and nothing to answer, whose conversation ends with the model's
// answer: a request cannot end with the model's own message.
const continuePrompt = "Continue."

// resumePrompt is the prompt a run resuming history with the open calls
// sends: its own, or with none and nothing to answer, [continuePrompt]
// after an answer of the model (after a user message — a run cut short
// with its results recorded — the request is made as it stands).
func resumePrompt(prompt string, history []llm.Message, open []llm.Block) string {
	if prompt != "" || len(open) > 0 || len(history) == 0 || history[len(history)-1].Role == llm.RoleUser {
		return prompt
	}
	return continuePrompt
}
