package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"strings"
)

// The two provider types.
const (
	ProviderOpenAI    = "openai"    // OpenAI's APIs (see Wire)
	ProviderAnthropic = "anthropic" // Anthropic Messages
)

// The OpenAI APIs a type "openai" provider can be spoken to with.
const (
	WireChat      = "chat"      // Chat Completions (POST /chat/completions)
	WireResponses = "responses" // Responses (POST /responses)
	// WireAuto, for the openai preset only, picks Responses for the
	// models served by no other API (the Codex and -pro models) and Chat
	// Completions for the rest; the runner decides by the model.
	WireAuto = "auto"
)

// Preset is a built-in provider: a newcomer sets its key variable and runs.
type Preset struct {
	Name string
	// Type is [ProviderOpenAI] or [ProviderAnthropic].
	Type    string
	BaseURL string
	// BaseURLEnv names a variable that overrides BaseURL (the vendor SDKs'
	// convention), or is empty.
	BaseURLEnv string
	// KeyEnv names the variable holding the API key; empty means no key.
	KeyEnv string
	// Model is the default model.
	Model   string
	Headers map[string]string
	// Wire is [WireChat] (when empty), [WireResponses] or [WireAuto] for
	// type openai.
	Wire string
	// ThoughtTags says the endpoint sends thinking between <thought> tags
	// in the content (Gemini).
	ThoughtTags bool
	// SubModel is the provider's cheaper model that sub-queries use by
	// default; empty means the run's model. Every one is in
	// [DefaultPrices], so that cost caps hold for sub-queries.
	SubModel string
}

// Presets returns the built-in providers in auto-detection order: without
// --provider or a configured provider, the first preset whose key variable
// is set is used. ollama has no key and is never auto-detected.
func Presets() []Preset {
	return []Preset{
		{Name: "anthropic", Type: ProviderAnthropic, BaseURL: "https://api.anthropic.com",
			BaseURLEnv: "ANTHROPIC_BASE_URL", KeyEnv: "ANTHROPIC_API_KEY", Model: "claude-sonnet-5-5", SubModel: "claude-haiku-5-5"},
		{Name: "openai", Type: ProviderOpenAI, BaseURL: "https://api.openai.com/v1",
			BaseURLEnv: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY", Model: "gpt-5.5", Wire: WireAuto, SubModel: "gpt-5.4-mini"},
		{Name: "openrouter", Type: ProviderOpenAI, BaseURL: "https://openrouter.ai/api/v1",
			KeyEnv: "OPENROUTER_API_KEY", Model: "anthropic/claude-sonnet-5.5", SubModel: "anthropic/claude-haiku-5.5",
			Headers: map[string]string{"X-Title": "rubichan"}},
		{Name: "groq", Type: ProviderOpenAI, BaseURL: "https://api.groq.com/openai/v1",
			KeyEnv: "GROQ_API_KEY", Model: "openai/gpt-oss-120b"},
		{Name: "deepseek", Type: ProviderOpenAI, BaseURL: "https://api.deepseek.com",
			KeyEnv: "DEEPSEEK_API_KEY", Model: "deepseek-chat"},
		// Gemini through Google's OpenAI-compatible endpoint.
		{Name: "gemini", Type: ProviderOpenAI, BaseURL: GeminiBaseURL,
			KeyEnv: "GEMINI_API_KEY", Model: "gemini-3.5-flash", ThoughtTags: true, SubModel: "gemini-3.1-flash-lite-preview"},
		{Name: "ollama", Type: ProviderOpenAI, BaseURL: "http://localhost:11434/v1",
			Model: "gpt-oss:20b"},
	}
}

// GeminiBaseURL is the OpenAI-compatible endpoint of the Gemini API.
const GeminiBaseURL = "https://generativelanguage.googleapis.com/v1beta/openai/"

// presetByName returns the preset called name.
func presetByName(name string) (Preset, bool) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// ResolvedProvider is the provider a run talks to, with everything needed
// to build an llm client. The API key is kept out of every printed form:
// String, GoString, fmt verbs, JSON and slog all show it redacted.
type ResolvedProvider struct {
	// Name is the preset or [providers] entry name.
	Name string
	// Type is [ProviderOpenAI] or [ProviderAnthropic].
	Type string
	// Wire is, for type openai, [WireChat], [WireResponses] or [WireAuto].
	Wire    string
	BaseURL string
	Model   string
	Headers map[string]string
	// ThoughtTags says the endpoint sends thinking between <thought> tags
	// (the gemini preset, or any base URL on Gemini's host).
	ThoughtTags bool
	// KeyEnv is the variable the key was read from, or empty.
	KeyEnv string
	// Chosen says how the provider was picked ("flag --provider",
	// "auto-detected from ANTHROPIC_API_KEY", a file and line, ...).
	Chosen string
	// ModelFrom says where the model came from.
	ModelFrom string
	// SubModel is the model of sub-queries: [query] model, else the
	// preset's cheaper model, else Model.
	SubModel string
	// BaseURLFrom says where the base URL came from.
	BaseURLFrom string
	// Preset says the provider is a built-in preset, not a [providers]
	// entry.
	Preset bool
	// StructuredOutput is [providers.NAME] structured_output: "native",
	// "tool" or empty (rubichan chooses).
	StructuredOutput string

	apiKey string
}

// APIKey returns the key to send. Never print it.
func (p ResolvedProvider) APIKey() string { return p.apiKey }

// WithAPIKey returns p sending key, for a provider built by hand rather
// than by [Loaded.ResolveProvider].
func (p ResolvedProvider) WithAPIKey(key string) ResolvedProvider {
	p.apiKey = key
	return p
}

// Redacted is what is shown in place of a key or a credential.
const Redacted = "[redacted]"

// keyState describes the key without revealing it.
func (p ResolvedProvider) keyState() string {
	switch {
	case p.apiKey != "":
		return Redacted
	case p.KeyEnv == "":
		return "none needed"
	}
	return "missing"
}

// String describes the provider with the key redacted and header values
// left out (they may carry credentials too).
func (p ResolvedProvider) String() string {
	var h []string
	h = append(h, sortedKeys(p.Headers)...)
	typ := p.Type
	if p.Wire != "" {
		typ += ", wire " + p.Wire
	}
	return fmt.Sprintf("provider %s (type %s, base URL %s, model %s, key %s, headers [%s])",
		p.Name, typ, p.BaseURL, p.Model, p.keyState(), strings.Join(h, " "))
}

// GoString is String, so that %#v cannot print the key either.
func (p ResolvedProvider) GoString() string { return p.String() }

// Format implements [fmt.Formatter]: every verb prints String.
func (p ResolvedProvider) Format(f fmt.State, verb rune) {
	_, _ = f.Write([]byte(p.String()))
}

// MarshalJSON writes the provider with the key redacted and header values
// left out.
func (p ResolvedProvider) MarshalJSON() ([]byte, error) {
	return json.Marshal(p.Public())
}

// LogValue implements [slog.LogValuer] with the same redaction.
func (p ResolvedProvider) LogValue() slog.Value {
	return slog.StringValue(p.String())
}

// PublicProvider is the printable form of a ResolvedProvider.
type PublicProvider struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Wire        string   `json:"wire,omitempty"`
	BaseURL     string   `json:"base_url"`
	BaseURLFrom string   `json:"base_url_from,omitempty"`
	Model       string   `json:"model"`
	ModelFrom   string   `json:"model_from,omitempty"`
	APIKey      string   `json:"api_key"`
	APIKeyEnv   string   `json:"api_key_env,omitempty"`
	Headers     []string `json:"headers,omitempty"`
	Chosen      string   `json:"chosen"`
	// StructuredOutput is structured_output when the configuration sets it.
	StructuredOutput string `json:"structured_output,omitempty"`
}

// Public returns the printable form of p: the key redacted, header values
// left out.
func (p ResolvedProvider) Public() PublicProvider {
	return PublicProvider{
		Name: p.Name, Type: p.Type, Wire: p.Wire, BaseURL: p.BaseURL, BaseURLFrom: p.BaseURLFrom,
		Model: p.Model, ModelFrom: p.ModelFrom, APIKey: p.keyState(), APIKeyEnv: p.KeyEnv,
		Headers: sortedKeys(p.Headers), Chosen: p.Chosen, StructuredOutput: p.StructuredOutput,
	}
}

// ResolveProvider picks the provider of a run: the configured one (from
// --provider, RUBICHAN_PROVIDER or a config file), else the first preset
// whose key variable is set, else it fails listing the variables to set.
// base_url from the configuration overrides the provider's base URL, and
// for presets the vendor's base-URL variable (ANTHROPIC_BASE_URL,
// OPENAI_BASE_URL) comes next. Errors never hold a key; the caller treats
// them as usage errors (exit 2).
func (l *Loaded) ResolveProvider(lookupEnv func(string) (string, bool)) (ResolvedProvider, error) {
	env := func(name string) string {
		if lookupEnv == nil || name == "" {
			return ""
		}
		v, _ := lookupEnv(name)
		return strings.TrimSpace(v)
	}
	name, chosen, err := l.chooseProvider(env)
	if err != nil {
		return ResolvedProvider{}, err
	}
	rp := ResolvedProvider{Name: name, Chosen: chosen}
	if c, ok := l.Providers[name]; ok && c.Type != "" {
		err = l.fromCustom(&rp, c)
	} else if p, ok := presetByName(name); ok {
		err = rp.fromPreset(p, env)
		rp.Preset = true
	} else {
		var names []string
		for _, p := range Presets() {
			names = append(names, p.Name)
		}
		err = fmt.Errorf("provider %q (from %s) is neither a preset (%s) nor a [providers.%s] entry",
			name, chosen, strings.Join(names, ", "), name)
	}
	if err != nil {
		return ResolvedProvider{}, err
	}
	if l.BaseURL != "" {
		rp.BaseURL, rp.BaseURLFrom = l.BaseURL, l.Origin("base_url").String()
	}
	if l.Model != "" {
		rp.Model, rp.ModelFrom = l.Model, l.Origin("model").String()
	}
	rp.StructuredOutput = l.Providers[name].StructuredOutput
	rp.ThoughtTags = rp.ThoughtTags || strings.Contains(rp.BaseURL, "generativelanguage.googleapis.com")
	if p, ok := presetByName(name); ok && rp.SubModel == "" && l.Providers[name].Type == "" {
		rp.SubModel = p.SubModel
	}
	if l.Query.Model != "" {
		rp.SubModel = l.Query.Model
	}
	if rp.SubModel == "" {
		rp.SubModel = rp.Model
	}
	if rp.KeyEnv != "" {
		rp.apiKey = env(rp.KeyEnv)
		if rp.apiKey == "" {
			return ResolvedProvider{}, fmt.Errorf("provider %s needs an API key: set %s", name, rp.KeyEnv)
		}
	}
	return rp, nil
}

// chooseProvider returns the configured provider's name and where it was
// set, else the first preset whose key variable env finds set.
func (l *Loaded) chooseProvider(env func(string) string) (name, chosen string, err error) {
	if l.Provider != "" {
		return l.Provider, l.Origin("provider").String(), nil
	}
	var vars []string
	for _, p := range Presets() {
		if p.KeyEnv == "" {
			continue
		}
		if env(p.KeyEnv) != "" {
			return p.Name, "auto-detected from " + p.KeyEnv, nil
		}
		vars = append(vars, p.KeyEnv)
	}
	return "", "", fmt.Errorf("no model provider: set one of %s, or choose one with --provider "+
		"(ollama needs no key; custom endpoints go in [providers.NAME] in a config file)", strings.Join(vars, ", "))
}

// fromCustom fills rp from a [providers.NAME] entry, which has no default
// model.
func (l *Loaded) fromCustom(rp *ResolvedProvider, c ProviderConfig) error {
	rp.Type, rp.BaseURL, rp.KeyEnv = c.Type, c.BaseURL, c.APIKeyEnv
	if c.Type == ProviderOpenAI {
		rp.Wire = c.Wire
		if rp.Wire == "" {
			rp.Wire = WireChat
		}
	} else if c.Wire != "" {
		return fmt.Errorf("provider %q: wire (%s) applies to type %q only, not %q",
			rp.Name, l.Origin("providers", rp.Name, "wire"), ProviderOpenAI, c.Type)
	}
	rp.BaseURLFrom = l.Origin("providers", rp.Name, "base_url").String()
	rp.Headers = maps.Clone(c.Headers)
	if rp.Headers == nil {
		rp.Headers = map[string]string{}
	}
	if l.Model == "" {
		return fmt.Errorf("provider %q has no default model: set model in a config file, %s or --model",
			rp.Name, EnvName("model"))
	}
	return nil
}

// fromPreset fills rp from preset p, whose base URL the vendor's variable
// (ANTHROPIC_BASE_URL, OPENAI_BASE_URL) overrides.
func (rp *ResolvedProvider) fromPreset(p Preset, env func(string) string) error {
	rp.Type, rp.BaseURL, rp.KeyEnv, rp.ThoughtTags = p.Type, p.BaseURL, p.KeyEnv, p.ThoughtTags
	if p.Type == ProviderOpenAI {
		rp.Wire = p.Wire
		if rp.Wire == "" {
			rp.Wire = WireChat
		}
	}
	rp.BaseURLFrom = "preset " + p.Name
	if v := env(p.BaseURLEnv); v != "" {
		if err := checkBaseURL(v); err != nil {
			return &Error{File: "environment", Key: p.BaseURLEnv, Err: err}
		}
		rp.BaseURL, rp.BaseURLFrom = v, "env "+p.BaseURLEnv
	}
	rp.Headers = maps.Clone(p.Headers)
	if rp.Headers == nil {
		rp.Headers = map[string]string{}
	}
	rp.Model, rp.ModelFrom = p.Model, "preset "+p.Name+" default"
	return nil
}
