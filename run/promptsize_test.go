package run

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/toolkit"
)

// promptBudget is the most the system prompt plus the tool specs may take
// on the wire, in each provider's encoding: every byte is sent again on
// every turn.
const promptBudget = 6 << 10

// promptRoot is a workspace path of 40 characters, as a CI runner's
// checkout has (the prompt names the workspace root).
const promptRoot = "/home/runner/work/service/service-api-v2"

// promptParts returns what a run without context files sends before the
// conversation, as the loop sends it: the system prompt and the tool specs.
func promptParts(t testing.TB) (string, []llm.ToolSpec) {
	t.Helper()
	if len(promptRoot) != 40 {
		t.Fatalf("promptRoot is %d characters, want 40", len(promptRoot))
	}
	ws, err := toolkit.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ap := harness.NewApprover(policy.Default().InWorkspace(ws.Root()), ws, "", false)
	s := harness.Settings{Provider: config.ResolvedProvider{KeyEnv: "ANTHROPIC_API_KEY"}}
	env := environment{Env: harness.Env{Environ: func() []string { return []string{"PATH=/usr/bin:/bin"} }}}
	l := agent.New(nil, agent.Options{Tools: harness.BuildTools(ws, ap, s.BashSettings(), env.Env, harness.Tools{})})
	sys, err := input.SystemPrompt(input.PromptOptions{Root: promptRoot, Now: time.Now(), NoContextFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	return sys, l.ToolSpecs()
}

// promptWire returns how many bytes the system prompt and the tool specs
// add to a request in each provider's encoding, measured on the request
// bodies a local scripted server receives: with them, minus without.
func promptWire(t testing.TB) (anthropic, openai int) {
	t.Helper()
	sys, specs := promptParts(t)
	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"a"}}, {Text: []string{"b"}}, {Text: []string{"c"}}, {Text: []string{"d"}}}})
	defer srv.Close()
	clients := []interface {
		Stream(context.Context, llm.Request) (*llm.Stream, error)
	}{
		llm.NewAnthropic(llm.AnthropicConfig{BaseURL: srv.URL(), APIKey: "k", PromptCaching: true}),
		llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL(), APIKey: "k"}),
	}
	var sizes [2]int
	for i, c := range clients {
		for _, full := range []bool{true, false} {
			req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("hi")}}}}
			if full {
				req.System, req.Tools = sys, specs
			}
			s, err := c.Stream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			for s.Next() {
			}
			s.Close()
			reqs := srv.Requests()
			n := len(reqs[len(reqs)-1].Body)
			if full {
				sizes[i] += n
			} else {
				sizes[i] -= n
			}
		}
	}
	return sizes[0], sizes[1]
}

func TestPromptAndToolSpecsFitBudget(t *testing.T) {
	t.Parallel()
	ant, oai := promptWire(t)
	sys, specs := promptParts(t)
	raw := len(sys)
	for _, s := range specs {
		raw += len(s.Name) + len(s.Description) + len(s.Schema)
	}
	t.Logf("on the wire: Anthropic %d B, OpenAI %d B (raw text %d B, budget %d B)", ant, oai, raw, promptBudget)
	for name, n := range map[string]int{"Anthropic": ant, "OpenAI": oai} {
		if n > promptBudget {
			t.Errorf("system prompt plus tool specs take %d bytes in the %s encoding, over the %d-byte budget", n, name, promptBudget)
		}
	}
	if !strings.Contains(sys, promptRoot) {
		t.Error("the system prompt does not name the workspace root")
	}
}

func BenchmarkPromptSize(b *testing.B) {
	ant, oai := promptWire(b)
	for b.Loop() {
	}
	b.ReportMetric(float64(ant), "anthropic-wire-bytes")
	b.ReportMetric(float64(oai), "openai-wire-bytes")
}
