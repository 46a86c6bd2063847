package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
)

// writeBigSession writes a session of turns tool round trips whose tool
// results hold about resultBytes each, as a run writes them: the
// assistant message, the tool call, decision and result lines, and the
// user message carrying the result.
func writeBigSession(tb testing.TB, path string, turns, resultBytes int) {
	tb.Helper()
	w, err := Create(path, Options{Secrets: []string{"sk-ant-test-KEY-must-never-be-printed"}})
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	now := Stamp(time.Now())
	w.Write(&Line{Type: TypeHeader, Time: now, Format: Format, ID: "big", Run: 1, Prompt: Ptr("fix it")})
	w.Write(&Line{Type: TypeUser, Time: now, Content: Blocks([]llm.Block{llm.TextBlock("fix it")})})
	var sb strings.Builder
	for i := 0; sb.Len() < resultBytes; i++ {
		// go test -v output: a newline per line, a tab now and then.
		fmt.Fprintf(&sb, "=== RUN   TestLoop/case_%d\n--- PASS: TestLoop/case_%d (0.00s)\nok  \tgithub.com/rubichan/rubichan/run\t0.%03ds\n", i, i, i%1000)
	}
	result := sb.String()
	for t := 1; t <= turns; t++ {
		id := fmt.Sprintf("call_%d_0", t)
		input := json.RawMessage(`{"command":"go test ./..."}`)
		w.Write(&Line{Type: TypeTurn, Time: now, Turn: t})
		w.Write(&Line{Type: TypeAssistant, Time: now, Turn: t, API: "anthropic", Model: "m", Content: Blocks([]llm.Block{
			llm.ThinkingBlock("Let me run the tests again.", "sig-"+id), llm.TextBlock("Running the tests."), llm.ToolUseBlock(id, "bash", input)})})
		w.Write(&Line{Type: TypeMessage, Time: now, Turn: t, Text: Ptr("Running the tests."), Usage: &Usage{InputTokens: 1000, OutputTokens: 50}})
		w.Write(&Line{Type: TypeToolCall, Time: now, Turn: t, ID: id, Name: "bash", Input: input})
		w.Write(&Line{Type: TypeDecision, Time: now, Turn: t, ID: id, Name: "bash", Decision: "allow", Rule: "--allow shell:go test *", Fact: "go test ./..."})
		out, cut := CapUTF8(result, ContentMax) // the reader's preview
		w.Write(&Line{Type: TypeToolResult, Time: now, Turn: t, ID: id, Name: "bash", IsError: Ptr(false), ExitCode: Ptr(0), DurationMS: Ptr(int64(1200)), Output: &out, ContentTruncated: cut})
		w.Write(&Line{Type: TypeUser, Time: now, Turn: t, Content: Blocks([]llm.Block{llm.ToolResultBlock(id, result, false)})})
	}
	w.Write(&Line{Type: TypeEnd, Time: now, ExitCode: Ptr(0), Status: StatusDone})
	if w.Failed() {
		tb.Fatal("write failed")
	}
}

// BenchmarkLoad loads a session of 1,000 tool round trips and about 20 MB
// and rebuilds its conversation, as a resume does. Target: ≤ 200 ms.
func BenchmarkLoad(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	// 1,000 round trips with 15 KB results, each with its 4 KB preview: 20 MB.
	writeBigSession(b, path, 1000, 15<<10)
	size := fileSize(b, path)
	b.SetBytes(size)
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		s, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		msgs, _ := s.Conversation("anthropic", false)
		if len(msgs) != 2001 {
			b.Fatalf("%d messages, want 2001", len(msgs))
		}
	}
	// On a shared machine the wall time includes waiting for a core; the
	// CPU time (all threads) says what the load costs.
	b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(size)/1e6, "file-MB")
}

func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}
