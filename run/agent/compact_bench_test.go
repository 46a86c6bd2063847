package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/llm"
)

// benchConversation is a run of n tool round trips after the task: an
// assistant message with text and a tool call, then its result of about
// 800 bytes.
func benchConversation(n int) []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("fix the failing test")}}}
	out := strings.Repeat("output line of the step\n", 33)
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("Running the next step."),
				llm.ToolUseBlock(id, "bash", json.RawMessage(fmt.Sprintf(`{"command":"go test ./pkg%d/..."}`, i)))}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock(id, out, false)}})
	}
	return msgs
}

// BenchmarkTokenEstimate measures the estimate made before each request
// of a run of 50 and of 500 turns (ns/request): it stays flat as the run
// grows, O(new content). The reencode variants show what marshalling the
// whole conversation would cost instead, for the last request of the run
// alone (ns/last-request).
func BenchmarkTokenEstimate(b *testing.B) {
	for _, turns := range []int{50, 500} {
		msgs := benchConversation(turns)
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			for b.Loop() {
				e := newTokenEstimator("system prompt", nil)
				for t := 1; t <= turns; t++ {
					est := e.estimate(msgs[:2*t-1])
					e.sent()
					e.observe(llm.Usage{InputTokens: est})
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns), "ns/request")
		})
		b.Run(fmt.Sprintf("reencode/turns=%d", turns), func(b *testing.B) {
			for b.Loop() {
				data, err := json.Marshal(msgs)
				if err != nil || len(data) == 0 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/last-request")
		})
	}
}
