package agenttest

import (
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
)

// AskCase is one case of a test of a single model request with retries (a
// sub-query's ask): the turns the scripted model plays, and what the ask
// must give back: its text, the usage of every attempt, how many requests
// reached the model and a part of its error message ("" for none).
type AskCase struct {
	Name     string
	Turns    []llmtest.Turn
	Text     string
	In, Out  int
	Requests int
	Err      string
}

// AskTurns returns the turns AskCases are made of: a good answer
// ("Answer", 10 input and 3 output tokens), an overloaded error after a
// message_start (whose 5 input tokens and 1 output token the failed
// attempt reports) and a permanent authentication failure.
func AskTurns() (ok, overloaded, denied llmtest.Turn) {
	ok = llmtest.Turn{Text: []string{"An", "swer"}, Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 3}}
	overloaded = llmtest.Turn{Usage: llmtest.Usage{InputTokens: 5}, Fault: &llmtest.Fault{ErrorEvent: true, Type: "overloaded_error", Message: "Overloaded"}}
	denied = llmtest.Turn{Fault: &llmtest.Fault{Status: 401, Type: "authentication_error", Message: "bad key"}}
	return ok, overloaded, denied
}

// RunAskCases runs each case, in parallel, against its own scripted model
// server: ask sends the one request through client and returns the text,
// the usage and the error message it got.
func RunAskCases(t *testing.T, tests []AskCase, ask func(t *testing.T, client *llm.AnthropicClient) (text string, used llm.Usage, msg string)) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Script{Turns: tc.Turns})
			defer srv.Close()
			client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "sk-test"})
			text, used, msg := ask(t, client)
			if text != tc.Text || used.InputTokens != tc.In || used.OutputTokens != tc.Out {
				t.Errorf("text %q, usage %d in %d out; want %q, %d in %d out", text, used.InputTokens, used.OutputTokens, tc.Text, tc.In, tc.Out)
			}
			if (tc.Err == "") != (msg == "") || !strings.Contains(msg, tc.Err) {
				t.Errorf("error %q, want one containing %q", msg, tc.Err)
			}
			if n := len(srv.Requests()); n != tc.Requests {
				t.Errorf("%d requests, want %d", n, tc.Requests)
			}
		})
	}
}
