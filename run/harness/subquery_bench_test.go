package harness

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/subquery"
	"github.com/rubichan/rubichan/toolkit"
)

// BenchmarkSubqueryOverhead measures what the run adds to a sub-query
// beyond the model's own time (target 2 ms): the same small request sent
// through the socket, the service (admission against the budget, the
// concurrency slot, the file range read, the event to a JSON sink) and
// the scripted model, minus the same request sent to the model directly.
func BenchmarkSubqueryOverhead(b *testing.B) {
	srv := llmtest.NewServer(llmtest.Script{Answers: []llmtest.Answer{{Turn: llmtest.Turn{Text: []string{"NONE"}}}}})
	defer srv.Close()
	client := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "k"})
	dir := b.TempDir()
	file := filepath.Join(dir, "input.log")
	os.WriteFile(file, []byte(strings.Repeat("a line of the log to ask about\n", 100)), 0o600)
	js := sink.NewJSON(io.Discard, true, "bench", nil)
	budget, _ := NewBudget(config.Limits{MaxCost: 1000}, "claude-haiku-5-5", config.DefaultPrices())
	ws, err := toolkit.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	ref, err := ws.Resolve(file)
	if err != nil {
		b.Fatal(err)
	}
	svc := &Subqueries{opt: SubqueryOptions{Model: "claude-haiku-5-5", Prices: config.DefaultPrices(), MaxCost: 1000, Concurrency: 4},
		client: client, budget: budget, emit: js.Handle, retry: llm.DefaultRetryPolicy(), slots: make(chan struct{}, 4),
		gate: &fileGate{ws: ws, judge: func(string, toolkit.Effects) agent.Verdict { return agent.Verdict{Kind: agent.VerdictAllow} }}}
	svc.gate.allowed = map[string]toolkit.PathRef{file: ref} // the policy's answer, cached as after the first range
	s, err := subquery.Listen(dir, svc.handle)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx)
	defer s.Close()
	cl, err := subquery.Dial(ctx, s.Path(), s.Token())
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	req := subquery.Request{Prompt: "NONE or the error", File: file, Offset: 0, Length: 3100}
	direct := llm.Request{Model: "claude-haiku-5-5", MaxTokens: SubqueryMaxTokens, Messages: []llm.Message{{Role: llm.RoleUser,
		Content: SubqueryBlocks([]byte(strings.Repeat("a line of the log to ask about\n", 100)), req.Prompt)}}}
	// One of each first, untimed: the connections to the scripted server
	// and the first-use allocations are no per-sub-query cost (a 1x run
	// would otherwise measure only them).
	if r, err := cl.Ask(ctx, req); err != nil || r.Error != nil {
		b.Fatalf("ask: %v %+v", err, r.Error)
	}
	if _, _, err := svc.ask(ctx, direct); err != nil {
		b.Fatal(err)
	}
	var via, plain time.Duration
	for b.Loop() {
		t := time.Now()
		if r, err := cl.Ask(ctx, req); err != nil || r.Error != nil {
			b.Fatalf("ask: %v %+v", err, r.Error)
		}
		via += time.Since(t)
		t = time.Now()
		if _, _, err := svc.ask(ctx, direct); err != nil {
			b.Fatal(err)
		}
		plain += time.Since(t)
	}
	over := float64((via - plain).Microseconds()) / float64(b.N) / 1000
	b.ReportMetric(float64(via.Microseconds())/float64(b.N)/1000, "ms/via-run")
	b.ReportMetric(float64(plain.Microseconds())/float64(b.N)/1000, "ms/direct")
	b.ReportMetric(over, "ms/overhead")
	if over > 2 {
		b.Errorf("the run adds %.2f ms per sub-query, target 2 ms", over)
	}
}
