package run

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
)

// BenchmarkParallelCalls times one model message of four
// `sleep 0.5; echo N` calls, as the issue measured the agents side by
// side: ms/run with the calls run at once (the default), floor-ms/run the
// same run with RUBICHAN_PARALLEL_TOOL_CALLS=1 (one after another) in the same
// iteration, and x-floor the ratio.
func BenchmarkParallelCalls(b *testing.B) {
	bin := benchRubichan(b)
	ws := b.TempDir()
	var calls []llmtest.ToolCall
	for i := range 4 {
		calls = append(calls, llmtest.ToolCall{Name: "bash", Args: []string{fmt.Sprintf(`{"command":"sleep 0.5; echo %d"}`, i+1)}})
	}
	script := llmtest.Script{Turns: []llmtest.Turn{{ToolCalls: calls}, {Text: []string{"done"}}}}
	run := func(env ...string) time.Duration {
		srv := llmtest.NewServer(script)
		defer srv.Close()
		cmd := exec.Command(bin, "exec", "-C", ws, "--quiet", "--no-stdin", "go")
		cmd.Env = append(benchEnv(b, srv.URL()), env...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil || !strings.HasSuffix(out.String(), "done\n") {
			b.Fatalf("run: %v\n%s", err, out.String())
		}
		return time.Since(start)
	}
	var ours, seq time.Duration
	for b.Loop() {
		ours += run()
		b.StopTimer()
		// The variable, not the flag: a binary from before the flag runs
		// them one after another either way.
		seq += run("RUBICHAN_PARALLEL_TOOL_CALLS=1")
		b.StartTimer()
	}
	b.ReportMetric(float64(ours.Milliseconds())/float64(b.N), "ms/run")
	b.ReportMetric(float64(seq.Milliseconds())/float64(b.N), "floor-ms/run")
	b.ReportMetric(float64(ours)/float64(seq), "x-floor")
}
