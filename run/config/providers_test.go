package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const secretKey = "sk-test-SECRET-0123456789"

func TestResolveProvider(t *testing.T) {
	t.Parallel()
	const gw = `[providers.gw]
type = "anthropic"
base_url = "https://gw.example"
api_key_env = "GW_KEY"
headers = { "X-Team" = "ci" }
[providers.local]
type = "openai"
base_url = "http://127.0.0.1:8000/v1"
[providers.codex]
type = "openai"
wire = "responses"
base_url = "http://127.0.0.1:8001/v1"
[providers.tooled]
type = "anthropic"
base_url = "https://gw.example"
structured_output = "native"
[providers.anthropic]
structured_output = "tool"
[providers.gemgw]
type = "openai"
base_url = "https://generativelanguage.googleapis.com/v1beta/openai"
`
	for _, tc := range []struct {
		name  string
		file  string
		env   map[string]string
		flags map[string]string
		want  ResolvedProvider // apiKey compared separately
		key   string
	}{
		{name: "anthropic detected", env: map[string]string{"ANTHROPIC_API_KEY": secretKey},
			want: ResolvedProvider{Name: "anthropic", Type: "anthropic", BaseURL: "https://api.anthropic.com", Model: "claude-sonnet-5-5",
				KeyEnv: "ANTHROPIC_API_KEY", Chosen: "auto-detected from ANTHROPIC_API_KEY"}, key: secretKey},
		{name: "anthropic wins detection over openai",
			env:  map[string]string{"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"},
			want: ResolvedProvider{Name: "anthropic", Type: "anthropic", BaseURL: "https://api.anthropic.com", Model: "claude-sonnet-5-5", KeyEnv: "ANTHROPIC_API_KEY", Chosen: "auto-detected from ANTHROPIC_API_KEY"}, key: "a"},
		{name: "openai detected with base URL variable",
			env:  map[string]string{"OPENAI_API_KEY": " o \n", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
			want: ResolvedProvider{Name: "openai", Type: "openai", Wire: "auto", BaseURL: "http://127.0.0.1:9/v1", Model: "gpt-5.5", KeyEnv: "OPENAI_API_KEY", Chosen: "auto-detected from OPENAI_API_KEY"}, key: "o"},
		{name: "openrouter detected", env: map[string]string{"OPENROUTER_API_KEY": "r"},
			want: ResolvedProvider{Name: "openrouter", Type: "openai", BaseURL: "https://openrouter.ai/api/v1", Model: "anthropic/claude-sonnet-5.5",
				KeyEnv: "OPENROUTER_API_KEY", Headers: map[string]string{"X-Title": "rubichan"}, Chosen: "auto-detected from OPENROUTER_API_KEY"}, key: "r"},
		{name: "groq detected", env: map[string]string{"GROQ_API_KEY": "g"},
			want: ResolvedProvider{Name: "groq", Type: "openai", BaseURL: "https://api.groq.com/openai/v1", Model: "openai/gpt-oss-120b", KeyEnv: "GROQ_API_KEY", Chosen: "auto-detected from GROQ_API_KEY"}, key: "g"},
		{name: "deepseek detected", env: map[string]string{"DEEPSEEK_API_KEY": "d"},
			want: ResolvedProvider{Name: "deepseek", Type: "openai", Wire: "chat", BaseURL: "https://api.deepseek.com", Model: "deepseek-chat", KeyEnv: "DEEPSEEK_API_KEY", Chosen: "auto-detected from DEEPSEEK_API_KEY"}, key: "d"},
		{name: "gemini detected", env: map[string]string{"GEMINI_API_KEY": "gm"},
			want: ResolvedProvider{Name: "gemini", Type: "openai", Wire: "chat", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", Model: "gemini-3.5-flash",
				KeyEnv: "GEMINI_API_KEY", ThoughtTags: true, Chosen: "auto-detected from GEMINI_API_KEY"}, key: "gm"},
		{name: "custom structured output", file: gw, flags: map[string]string{"provider": "tooled", "model": "m"},
			want: ResolvedProvider{Name: "tooled", Type: "anthropic", BaseURL: "https://gw.example", Model: "m", Headers: map[string]string{}, Chosen: "flag --provider", StructuredOutput: "native"}},
		{name: "preset structured output", file: gw, flags: map[string]string{"provider": "anthropic"}, env: map[string]string{"ANTHROPIC_API_KEY": "a"},
			want: ResolvedProvider{Name: "anthropic", Type: "anthropic", BaseURL: "https://api.anthropic.com", Model: "claude-sonnet-5-5", KeyEnv: "ANTHROPIC_API_KEY", Chosen: "flag --provider", Preset: true, StructuredOutput: "tool"}, key: "a"},
		{name: "custom responses wire", file: gw, flags: map[string]string{"provider": "codex", "model": "gpt-5-codex"},
			want: ResolvedProvider{Name: "codex", Type: "openai", Wire: "responses", BaseURL: "http://127.0.0.1:8001/v1", Model: "gpt-5-codex", Headers: map[string]string{}, Chosen: "flag --provider"}},
		{name: "custom on gemini's host reads thought tags", file: gw, flags: map[string]string{"provider": "gemgw", "model": "gemini-2.5-pro"},
			want: ResolvedProvider{Name: "gemgw", Type: "openai", Wire: "chat", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Model: "gemini-2.5-pro", Headers: map[string]string{}, ThoughtTags: true, Chosen: "flag --provider"}},
		{name: "ollama by flag needs no key", flags: map[string]string{"provider": "ollama"},
			want: ResolvedProvider{Name: "ollama", Type: "openai", BaseURL: "http://localhost:11434/v1", Model: "gpt-oss:20b", Chosen: "flag --provider"}},
		{name: "flag beats detection", env: map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"},
			flags: map[string]string{"provider": "openai", "model": "gpt-4.1", "base-url": "https://proxy.example/v1"},
			want:  ResolvedProvider{Name: "openai", Type: "openai", BaseURL: "https://proxy.example/v1", Model: "gpt-4.1", KeyEnv: "OPENAI_API_KEY", Chosen: "flag --provider"}, key: "o"},
		{name: "custom provider", file: "provider = \"gw\"\n" + gw, env: map[string]string{"GW_KEY": "k"}, flags: map[string]string{"model": "m"},
			want: ResolvedProvider{Name: "gw", Type: "anthropic", BaseURL: "https://gw.example", Model: "m", KeyEnv: "GW_KEY",
				Headers: map[string]string{"X-Team": "ci"}, Chosen: "config.toml:1"}, key: "k"},
		{name: "custom provider without key", file: gw, flags: map[string]string{"provider": "local", "model": "qwen"},
			want: ResolvedProvider{Name: "local", Type: "openai", BaseURL: "http://127.0.0.1:8000/v1", Model: "qwen", Headers: map[string]string{}, Chosen: "flag --provider"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lc, env := loadForProvider(t, tc.file, tc.env, tc.flags)
			got, err := lc.ResolveProvider(env)
			if err != nil {
				t.Fatal(err)
			}
			checkResolved(t, got, tc.want, tc.key)
		})
	}
}

// checkResolved compares a resolved provider with want, its key with key.
func checkResolved(t *testing.T, got, want ResolvedProvider, key string) {
	t.Helper()
	if got.APIKey() != key {
		t.Errorf("APIKey() = %q, want %q", got.APIKey(), key)
	}
	if want.StructuredOutput != "" && (got.StructuredOutput != want.StructuredOutput || got.Preset != want.Preset) {
		t.Errorf("structured_output %q preset %v, want %q %v", got.StructuredOutput, got.Preset, want.StructuredOutput, want.Preset)
	}
	if want.Wire != "" && got.Wire != want.Wire || got.ThoughtTags != want.ThoughtTags {
		t.Errorf("wire %q thought tags %v, want %q %v", got.Wire, got.ThoughtTags, want.Wire, want.ThoughtTags)
	}
	if got.Name != want.Name || got.Type != want.Type || got.BaseURL != want.BaseURL ||
		got.Model != want.Model || got.KeyEnv != want.KeyEnv || !strings.HasSuffix(got.Chosen, want.Chosen) ||
		fmt.Sprint(got.Headers) != fmt.Sprint(orEmpty(want.Headers)) {
		t.Errorf("resolved\n%s (chosen %q, headers %v)\nwant\n%s (chosen %q, headers %v)",
			got, got.Chosen, got.Headers, want, want.Chosen, want.Headers)
	}
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// loadForProvider loads a config with one optional user file.
func loadForProvider(t *testing.T, file string, env, flags map[string]string) (*Loaded, func(string) (string, bool)) {
	t.Helper()
	f := newConfigFixture(t, file, "", "")
	for k, v := range env {
		f.env[k] = v
	}
	opts := f.options()
	opts.Flags = flags
	lc, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	return lc, f.lookup
}

func TestResolveProviderErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		file     string
		env      map[string]string
		flags    map[string]string
		contains []string
	}{
		{name: "no key at all", env: map[string]string{"ANTHROPIC_API_KEY": ""},
			contains: []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "--provider", "ollama"}},
		{name: "preset without its key", flags: map[string]string{"provider": "anthropic"}, env: map[string]string{"OPENAI_API_KEY": secretKey},
			contains: []string{"provider anthropic needs an API key", "ANTHROPIC_API_KEY"}},
		{name: "unknown provider", flags: map[string]string{"provider": "mistral"},
			contains: []string{`provider "mistral"`, "flag --provider", "anthropic, openai, openrouter, groq, deepseek, gemini, ollama", "[providers.mistral]"}},
		{name: "wire on an anthropic provider", file: "provider = \"gw\"\nmodel = \"m\"\n[providers.gw]\ntype = \"anthropic\"\nwire = \"responses\"\nbase_url = \"http://h\"\n",
			contains: []string{`provider "gw": wire`, `applies to type "openai" only, not "anthropic"`}},
		{name: "custom without model", file: "provider = \"gw\"\n[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\n",
			contains: []string{`provider "gw" has no default model`, "RUBICHAN_MODEL", "--model"}},
		{name: "custom key variable unset", file: "provider = \"gw\"\nmodel = \"m\"\n[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\napi_key_env = \"GW_KEY\"\n",
			contains: []string{"provider gw needs an API key: set GW_KEY"}},
		{name: "bad base URL variable", env: map[string]string{"ANTHROPIC_API_KEY": secretKey, "ANTHROPIC_BASE_URL": "api.example"},
			contains: []string{"ANTHROPIC_BASE_URL", "http"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lc, env := loadForProvider(t, tc.file, tc.env, tc.flags)
			_, err := lc.ResolveProvider(env)
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			if strings.Contains(err.Error(), secretKey) {
				t.Errorf("error %q holds the key", err)
			}
		})
	}
}

func TestResolvedProviderRedactsKey(t *testing.T) {
	t.Parallel()
	p := ResolvedProvider{Name: "gw", Type: "openai", BaseURL: "https://gw.example/v1", Model: "m", KeyEnv: "GW_KEY",
		Headers: map[string]string{"Authorization": "Bearer " + secretKey}, apiKey: secretKey}
	var logBuf bytes.Buffer
	slog.New(slog.NewTextHandler(&logBuf, nil)).Info("resolved", "provider", p)
	slog.New(slog.NewJSONHandler(&logBuf, nil)).Info("resolved", "provider", p)
	js, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	jsPtr, err := json.Marshal(struct{ P *ResolvedProvider }{&p})
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"String": p.String(), "%v": fmt.Sprintf("%v", p), "%+v": fmt.Sprintf("%+v", p), "%#v": fmt.Sprintf("%#v", p),
		"%s": fmt.Sprintf("%s", p), "%q": fmt.Sprintf("%q", p), "pointer %+v": fmt.Sprintf("%+v", &p),
		"in a struct %+v": fmt.Sprintf("%+v", struct{ P ResolvedProvider }{p}),
		"in a struct %#v": fmt.Sprintf("%#v", struct{ P ResolvedProvider }{p}),
		"json":            string(js), "json pointer": string(jsPtr), "slog": logBuf.String(),
	}
	for name, out := range outputs {
		if strings.Contains(out, secretKey) || strings.Contains(out, "SECRET") {
			t.Errorf("%s prints the key: %s", name, out)
		}
		if !strings.Contains(out, "gw") {
			t.Errorf("%s lost the provider: %s", name, out)
		}
	}
	if !strings.Contains(p.String(), Redacted) || !strings.Contains(string(js), `"api_key":"[redacted]"`) {
		t.Errorf("String %q / JSON %s should say the key is redacted", p, js)
	}
	if p.APIKey() != secretKey {
		t.Errorf("APIKey() lost the key")
	}
}

func TestPresetsAreComplete(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range Presets() {
		if seen[p.Name] {
			t.Errorf("preset %s listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Type != ProviderOpenAI && p.Type != ProviderAnthropic {
			t.Errorf("preset %s has type %q", p.Name, p.Type)
		}
		if err := checkBaseURL(p.BaseURL); err != nil {
			t.Errorf("preset %s base URL: %v", p.Name, err)
		}
		if p.Model == "" {
			t.Errorf("preset %s has no default model", p.Name)
		}
		if p.KeyEnv == "" && p.Name != "ollama" {
			t.Errorf("preset %s has no key variable", p.Name)
		}
		if _, ok := DefaultPrices()[p.Model]; !ok && p.Name != "ollama" && p.Name != "openrouter" && p.Name != "groq" && p.Name != "deepseek" {
			t.Errorf("preset %s: default model %s has no price", p.Name, p.Model)
		}
	}
	for _, n := range []string{"anthropic", "openai", "openrouter", "ollama", "groq", "deepseek", "gemini"} {
		if !seen[n] {
			t.Errorf("preset %s missing", n)
		}
	}
}
