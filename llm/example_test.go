package llm_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
)

// Example streams one answer, printing text as it arrives, and retries a
// rate-limited first attempt.
func Example() {
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{
		{Fault: &llmtest.Fault{Status: 429, Headers: map[string]string{"retry-after-ms": "1"}}},
		{Text: []string{"Hello", ", world."}, Usage: llmtest.Usage{InputTokens: 12, OutputTokens: 4}},
	}})
	defer srv.Close()
	client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "key"})
	req := llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("Say hello.")}},
	}}

	var answer llm.Message
	var usage llm.Usage
	policy := llm.DefaultRetryPolicy()
	policy.Jitter = func(time.Duration) time.Duration { return 0 } // keep the example fast
	err := llm.Retry(context.Background(), policy, nil, func(ctx context.Context) error {
		s, err := client.Stream(ctx, req)
		if err != nil {
			return err
		}
		defer s.Close()
		for s.Next() {
			if ev := s.Current(); ev.Kind == llm.EventText {
				fmt.Print(ev.Text)
			}
		}
		answer, usage = s.Message(), s.Usage()
		return s.Err()
	}, func(n llm.RetryNotice) {
		var ae *llm.APIError
		if errors.As(n.Err, &ae) {
			fmt.Printf("retrying (%d %s)\n", ae.StatusCode, ae.Kind)
		}
	})
	fmt.Println()
	fmt.Println(err, len(answer.Content), usage.InputTokens, usage.OutputTokens)
	// Output:
	// retrying (429 rate limit)
	// Hello, world.
	// <nil> 1 12 4
}
