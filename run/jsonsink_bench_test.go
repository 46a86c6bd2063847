package run

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/events"
)

// answerDeltas is the size of the answer the output benchmarks stream.
const answerDeltas = 10_000

// BenchmarkOutputDeltas runs a whole exec in-process on a scripted model
// whose answer comes in 10,000 deltas, with stdout in text and in
// stream-json mode. Target (the machine-output issue): stream-json within
// 1.5× of text.
func BenchmarkOutputDeltas(b *testing.B) {
	pieces := make([]string, answerDeltas)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("word%d ", i)
	}
	script := llmtest.Script{Turns: []llmtest.Turn{{Text: pieces}}}
	for _, mode := range []string{outputText, outputStreamJSON} {
		b.Run(mode, func(b *testing.B) {
			ws := b.TempDir()
			env := environment{environ: func() []string { return nil }}
			for b.Loop() {
				b.StopTimer()
				srv := llmtest.NewServer(script)
				env.lookupEnv = fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL()}).lookupEnv
				b.StartTimer()
				args := []string{"rubichan", "exec", "--output", mode, "--no-session", "-C", ws, "--quiet", "go"}
				if code := runMain(context.Background(), args, nil, io.Discard, io.Discard, env); code != 0 {
					b.Fatalf("exit %d", code)
				}
				b.StopTimer()
				srv.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*answerDeltas), "ns/delta")
		})
	}
}

// BenchmarkJSONSinkDelta is the sink's own cost per text delta, for
// answers of 1,000 and 10,000 deltas: the same per delta (nothing sent
// is encoded again), with the allocations per delta constant.
func BenchmarkJSONSinkDelta(b *testing.B) {
	for _, n := range []int{1_000, answerDeltas} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				js := newJSONSink(io.Discard, true, "id", time.Now)
				js.init(events.Init{})
				js.handle(Event{Kind: EventTurnStart, Turn: 1})
				for i := range n {
					js.handle(Event{Kind: EventTextDelta, Turn: 1, Text: "word" + string(rune('a'+i%26)) + " "})
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delta")
		})
	}
}

// BenchmarkTextSinkDelta is the text sink's cost per delta, for
// comparison with BenchmarkJSONSinkDelta.
func BenchmarkTextSinkDelta(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ts := newTextSink(io.Discard, false)
		for i := range answerDeltas {
			ts.handle(Event{Kind: EventTextDelta, Turn: 1, Text: "word" + string(rune('a'+i%26)) + " "})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*answerDeltas), "ns/delta")
}
