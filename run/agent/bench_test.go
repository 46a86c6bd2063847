package agent_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/toolkit"
)

// roundTrips is the tool round trips of one iteration (the exec issue's
// target: 1 ms each).
const roundTrips = 50

// rawRoundTrips is the floor of the loop's round trip: the same requests to
// the same scripted server with net/http, each answer read to its end,
// nothing parsed or judged.
func rawRoundTrips(b *testing.B) time.Duration {
	srv := llmtest.NewServer(agenttest.ToolTurns(roundTrips, "noop", `{"path":"a.go"}`))
	defer srv.Close()
	body := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"}]}`
	start := time.Now()
	for range roundTrips + 1 {
		resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return time.Since(start)
}

// BenchmarkLoopRoundTrip measures the loop's own cost per tool round trip
// (request, SSE parsing, policy, result, next request) against the local
// scripted server, with a tool that does nothing. Target: 1 ms. The floor
// is [rawRoundTrips], in the same iteration; x-floor is the ratio.
func BenchmarkLoopRoundTrip(b *testing.B) {
	noop := &agenttest.FakeTool{Name: "noop", Kind: toolkit.EffectRead, Result: func(json.RawMessage) (toolkit.Result, error) {
		return toolkit.Result{Content: "ok"}, nil
	}}
	var total, floor time.Duration
	for b.Loop() {
		b.StopTimer()
		srv := llmtest.NewServer(agenttest.ToolTurns(roundTrips, "noop", `{"path":"a.go"}`))
		client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "k"})
		l := agent.New(client, agent.Options{Model: "m", System: "s", Tools: []toolkit.Tool{noop}, Limits: agent.Limits{MaxTurns: roundTrips + 1},
			Judge: agenttest.JudgeBy(nil, nil), Emit: func(agent.Event) {}})
		b.StartTimer()
		start := time.Now()
		if err := l.Run(context.Background(), "go"); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		b.StopTimer()
		srv.Close()
		floor += rawRoundTrips(b)
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N*(roundTrips+1))/1000, "ms/roundtrip")
	b.ReportMetric(float64(floor.Microseconds())/float64(b.N*(roundTrips+1))/1000, "floor-ms/roundtrip")
	b.ReportMetric(float64(total)/float64(floor), "x-floor")
}
