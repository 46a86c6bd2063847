package run

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/sink"
)

// answerDeltas is the size of the answer the output benchmarks stream.
const answerDeltas = 10_000

// BenchmarkOutputDeltas runs a whole exec in-process on a scripted model
// whose answer comes in 10,000 deltas, once with stdout in text and once
// in stream-json mode per iteration, alternating which goes first so that
// both see the same load on a shared machine. It reports each mode's time
// per delta and their ratio. Target (the machine-output issue):
// stream-json within 1.5× of text.
func BenchmarkOutputDeltas(b *testing.B) {
	pieces := make([]string, answerDeltas)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("word%d ", i)
	}
	script := llmtest.Script{Turns: []llmtest.Turn{{Text: pieces}}}
	ws := b.TempDir()
	run := func(mode string) time.Duration {
		b.StopTimer()
		srv := llmtest.NewServer(script)
		defer srv.Close()
		env := fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL()})
		env.Environ = func() []string { return nil }
		args := []string{"rubichan", "exec", "--output", mode, "--no-session", "-C", ws, "--quiet", "go"}
		b.StartTimer()
		start := time.Now()
		if code := runMain(context.Background(), args, nil, io.Discard, io.Discard, env); code != 0 {
			b.Fatalf("%s: exit %d", mode, code)
		}
		return time.Since(start)
	}
	var text, stream time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			text += run(outputText)
			stream += run(outputStreamJSON)
		} else {
			stream += run(outputStreamJSON)
			text += run(outputText)
		}
		i++
	}
	perDelta := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(i*answerDeltas) }
	b.ReportMetric(perDelta(text), "text-ns/delta")
	b.ReportMetric(perDelta(stream), "json-ns/delta")
	b.ReportMetric(float64(stream)/float64(text), "json/text")
}

// BenchmarkJSONSinkDelta is the sink's own cost per text delta, for
// answers of 1,000 and 10,000 deltas: the same per delta (nothing sent
// is encoded again), with the allocations per delta constant.
func BenchmarkJSONSinkDelta(b *testing.B) {
	for _, n := range []int{1_000, answerDeltas} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				js := sink.NewJSON(io.Discard, true, "id", time.Now)
				js.Init(events.Init{})
				js.Handle(agent.Event{Kind: agent.EventTurnStart, Turn: 1})
				for i := range n {
					js.Handle(agent.Event{Kind: agent.EventTextDelta, Turn: 1, Text: "word" + string(rune('a'+i%26)) + " "})
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
		ts := sink.NewText(io.Discard, sink.TextOptions{Final: false})
		for i := range answerDeltas {
			ts.Handle(agent.Event{Kind: agent.EventTextDelta, Turn: 1, Text: "word" + string(rune('a'+i%26)) + " "})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*answerDeltas), "ns/delta")
}
