package harness

import (
	"maps"
	"net/http"
	"slices"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
)

// LoadConfig is [config.Load] with its errors made usage errors (exit 2).
func LoadConfig(opts config.Options) (*config.Loaded, error) {
	lc, err := config.Load(opts)
	if err != nil {
		return nil, exit.UsageError{Err: err}
	}
	return lc, nil
}

// ResolveProvider is [config.Loaded.ResolveProvider] with its errors made
// usage errors (exit 2).
func ResolveProvider(lc *config.Loaded, lookupEnv func(string) (string, bool)) (config.ResolvedProvider, error) {
	rp, err := lc.ResolveProvider(lookupEnv)
	if err != nil {
		return rp, exit.UsageError{Err: err}
	}
	return rp, nil
}

// ProviderKeyVars lists every variable that may hold a provider key: the
// presets' and the configured [providers]' (kept out of the bash tool's
// environment).
func ProviderKeyVars(lc *config.Loaded) []string {
	var vars []string
	for _, p := range config.Presets() {
		if p.KeyEnv != "" {
			vars = append(vars, p.KeyEnv)
		}
	}
	if lc != nil {
		for _, name := range slices.Sorted(maps.Keys(lc.Providers)) {
			if v := lc.Providers[name].APIKeyEnv; v != "" {
				vars = append(vars, v)
			}
		}
	}
	return vars
}

// NewProviderClient builds the llm client for a resolved provider: for
// type openai the Responses client when its wire says so (or, with wire
// auto, when the model is served by the Responses API only), else the Chat
// Completions client, each keeping to the stream limits. hc (nil: the llm
// default) carries its HTTP traffic.
func NewProviderClient(rp config.ResolvedProvider, limits llm.StreamLimits, hc *http.Client) agent.Client {
	if rp.Type == config.ProviderOpenAI && ProviderWire(rp) == config.WireResponses {
		return llm.NewResponses(llm.ResponsesConfig{Provider: rp.Name, BaseURL: rp.BaseURL, APIKey: rp.APIKey(), KeyVar: rp.KeyEnv, Headers: rp.Headers, Limits: limits, HTTPClient: hc})
	}
	if rp.Type == config.ProviderOpenAI {
		c := llm.OpenAIConfig{Provider: rp.Name, BaseURL: rp.BaseURL, APIKey: rp.APIKey(), KeyVar: rp.KeyEnv, Headers: rp.Headers,
			ThoughtTags: rp.ThoughtTags, Limits: limits, HTTPClient: hc}
		if rp.Name == "openai" {
			// OpenAI's own API wants max_completion_tokens from its
			// reasoning models on; compatible servers know max_tokens.
			c.MaxTokensField = "max_completion_tokens"
		}
		return llm.NewOpenAI(c)
	}
	return llm.NewAnthropic(llm.AnthropicConfig{BaseURL: rp.BaseURL, APIKey: rp.APIKey(), KeyVar: rp.KeyEnv, Headers: rp.Headers, PromptCaching: true, Limits: limits, HTTPClient: hc})
}

// ProviderWire returns the OpenAI API a type openai provider is spoken to
// with, deciding wire auto by the model.
func ProviderWire(rp config.ResolvedProvider) string {
	if rp.Wire == config.WireAuto {
		if llm.ResponsesOnly(rp.Model) {
			return config.WireResponses
		}
		return config.WireChat
	}
	return rp.Wire
}

// StartSettings shows the configuration notes of lc (workspace keys
// ignored under the trust rule) and returns the run's budget for model.
// Without loaded settings there is no budget.
func StartSettings(lc *config.Loaded, model string, notice func(string)) (*agent.Budget, error) {
	if lc == nil {
		return nil, nil
	}
	for _, n := range lc.Notes {
		notice(n)
	}
	return NewBudget(lc.Limits, model, lc.Prices)
}

// InlineMax is the stdin size above which stdin is spilled; 0 means the
// input default.
func InlineMax(lc *config.Loaded) int64 {
	if lc == nil {
		return 0
	}
	return int64(lc.Input.StdinInlineMax)
}

// StreamLimits are the model client's limits: --max-response-size,
// --stream-idle-timeout and --stream-header-timeout; without loaded
// settings, llm's defaults.
func StreamLimits(lc *config.Loaded) llm.StreamLimits {
	if lc == nil {
		return llm.StreamLimits{}
	}
	return StreamLimitsOf(lc.Limits)
}

// StreamLimitsOf converts the configured limits, where a timeout of 0 is
// none, to llm's, where none is negative.
func StreamLimitsOf(l config.Limits) llm.StreamLimits {
	sl := llm.StreamLimits{MaxResponseBytes: int64(l.MaxResponseSize), IdleTimeout: l.StreamIdleTimeout, HeaderTimeout: l.StreamHeaderTimeout}
	if sl.IdleTimeout == 0 {
		sl.IdleTimeout = -1
	}
	if sl.HeaderTimeout == 0 {
		sl.HeaderTimeout = -1
	}
	return sl
}

// StdinMax is --stdin-max; 0 means the input default.
func StdinMax(lc *config.Loaded) int64 {
	if lc == nil {
		return 0
	}
	return int64(lc.Input.StdinMax)
}

// NewBudget is the run's budget under the loaded limits, priced from the
// loaded prices (see [config.LookupPrice]). A cost cap on a model without a
// known price is a usage error (exit 2): a cap that cannot be enforced must
// not look like one.
func NewBudget(limits config.Limits, model string, prices map[string]config.Price) (*agent.Budget, error) {
	b, err := agent.NewBudget(agent.BudgetLimits{MaxTokens: limits.MaxTokensTotal, MaxCost: limits.MaxCost}, model, priceFunc(prices))
	if err != nil {
		return nil, exit.UsageError{Err: err}
	}
	return b, nil
}

// priceFunc looks a model's price up in prices, as [config.LookupPrice]
// does.
func priceFunc(prices map[string]config.Price) agent.PriceFunc {
	return func(model string) (agent.Price, bool) {
		p, _, ok := config.LookupPrice(prices, model)
		return agent.Price(p), ok
	}
}
