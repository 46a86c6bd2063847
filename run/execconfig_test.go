package run

import (
	"context"
	"slices"
	"testing"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/llm/llmtest"
)

func TestNewProviderClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		rp       ResolvedProvider
		path     string
		auth     string // header carrying the key
		wantAuth string
	}{
		{"anthropic", ResolvedProvider{Name: "anthropic", Type: ProviderAnthropic, Model: "m", apiKey: "k1"}, "/v1/messages", "X-Api-Key", "k1"},
		{"openai", ResolvedProvider{Name: "openai", Type: ProviderOpenAI, Model: "m", apiKey: "k2"}, "/v1/chat/completions", "Authorization", "Bearer k2"},
		{"custom without key", ResolvedProvider{Name: "local", Type: ProviderOpenAI, Model: "m"}, "/v1/chat/completions", "Authorization", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"ok"}}}})
			defer srv.Close()
			rp := tc.rp
			rp.BaseURL = srv.URL()
			if rp.Type == ProviderOpenAI {
				rp.BaseURL += "/v1"
			}
			rp.Headers = map[string]string{"X-Team": "ci"}
			s, err := newProviderClient(rp).Stream(context.Background(), llm.Request{
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
	lc := &LoadedConfig{Config: Config{Providers: map[string]ProviderConfig{
		"gw":    {Type: ProviderOpenAI, BaseURL: "http://h", APIKeyEnv: "GW_TOKEN"},
		"local": {Type: ProviderOpenAI, BaseURL: "http://h"},
	}}}
	got := providerKeyVars(lc)
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "GW_TOKEN"} {
		if !slices.Contains(got, want) {
			t.Errorf("providerKeyVars = %q lacks %s", got, want)
		}
	}
	if slices.Contains(got, "") {
		t.Errorf("providerKeyVars = %q holds an empty name", got)
	}
	if len(providerKeyVars(nil)) != 5 {
		t.Errorf("providerKeyVars(nil) = %q, want the five preset variables", providerKeyVars(nil))
	}
}
