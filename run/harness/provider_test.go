package harness

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
)

func TestNewProviderClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		rp       config.ResolvedProvider
		path     string
		auth     string // header carrying the key
		wantAuth string
	}{
		{"anthropic", config.ResolvedProvider{Name: "anthropic", Type: config.ProviderAnthropic, Model: "m"}.WithAPIKey("k1"), "/v1/messages", "X-Api-Key", "k1"},
		{"openai", config.ResolvedProvider{Name: "openai", Type: config.ProviderOpenAI, Model: "m"}.WithAPIKey("k2"), "/v1/chat/completions", "Authorization", "Bearer k2"},
		{"custom without key", config.ResolvedProvider{Name: "local", Type: config.ProviderOpenAI, Model: "m"}, "/v1/chat/completions", "Authorization", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"ok"}}}})
			defer srv.Close()
			rp := tc.rp
			rp.BaseURL = srv.URL()
			if rp.Type == config.ProviderOpenAI {
				rp.BaseURL += "/v1"
			}
			rp.Headers = map[string]string{"X-Team": "ci"}
			s, err := NewProviderClient(rp, llm.StreamLimits{}, nil).Stream(context.Background(), llm.Request{
				Model:    "m",
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("hi")}}},
			})
			if err != nil {
				t.Fatal(err)
			}
			for s.Next() {
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			r := reqs[0]
			if r.Path != tc.path || r.Header.Get("X-Team") != "ci" || r.Header.Get(tc.auth) != tc.wantAuth {
				t.Errorf("request to %s with X-Team %q and %s %q; want %s, ci, %q",
					r.Path, r.Header.Get("X-Team"), tc.auth, r.Header.Get(tc.auth), tc.path, tc.wantAuth)
			}
		})
	}
}

func TestProviderKeyVars(t *testing.T) {
	t.Parallel()
	lc := &config.Loaded{Config: config.Config{Providers: map[string]config.ProviderConfig{
		"gw":    {Type: config.ProviderOpenAI, BaseURL: "http://h", APIKeyEnv: "GW_TOKEN"},
		"local": {Type: config.ProviderOpenAI, BaseURL: "http://h"},
	}}}
	got := ProviderKeyVars(lc)
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "GW_TOKEN"} {
		if !slices.Contains(got, want) {
			t.Errorf("ProviderKeyVars = %q lacks %s", got, want)
		}
	}
	if slices.Contains(got, "") {
		t.Errorf("ProviderKeyVars = %q holds an empty name", got)
	}
	if len(ProviderKeyVars(nil)) != 6 {
		t.Errorf("ProviderKeyVars(nil) = %q, want the six preset variables", ProviderKeyVars(nil))
	}
}

// TestConfigErrorsAreUsageErrors checks that run reports what run/config
// refuses as a usage error (exit 2) that still carries the *config.Error.
func TestConfigErrorsAreUsageErrors(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(config.Options{Flags: map[string]string{"max-cost": "lots"}})
	var ce *config.Error
	if exit.Code(err) != exit.Usage || !errors.As(err, &ce) || ce.Key != "--max-cost" {
		t.Errorf("LoadConfig error %v (exit %d), want a usage error naming --max-cost", err, exit.Code(err))
	}
	lc, err := LoadConfig(config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveProvider(lc, func(string) (string, bool) { return "", false }); exit.Code(err) != exit.Usage {
		t.Errorf("ResolveProvider without a key: %v (exit %d), want exit %d", err, exit.Code(err), exit.Usage)
	}
}
