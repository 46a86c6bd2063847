package run

import (
	"maps"
	"net/http"
	"slices"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/urfave/cli/v2"
)

// loadSettings loads the layered configuration for an exec run in cfg.Dir
// and resolves its provider. A headless run trusts the workspace file only
// with --trust-workspace. Every problem is a usage error (exit 2).
func (cfg *execConfig) loadSettings(c *cli.Context, env environment) error {
	lc, err := loadConfig(configOptionsFromCLI(c, env, cfg.Dir, cfg.TrustWorkspace))
	if err != nil {
		return err
	}
	rp, err := resolveRunProvider(cfg.trafficSettings(), lc, env.LookupEnv)
	if err != nil {
		return err
	}
	// A cost cap on a model without a price refuses to start, before
	// stdin is read or any request made.
	if _, err := newBudget(lc.Limits, rp.Model, lc.Prices); err != nil {
		if o := lc.Origin("limits", "max_cost"); o.Source != "flag --max-cost" {
			return usagef("%w (max_cost set by %s)", err, o)
		}
		return err
	}
	cfg.Settings, cfg.Resolved = lc, rp
	cfg.Provider, cfg.Model, cfg.BaseURL = rp.Name, rp.Model, rp.BaseURL
	cfg.APIKey, cfg.KeyVar = rp.APIKey(), rp.KeyEnv
	cfg.MaxTurns, cfg.Timeout, cfg.MaxToolCalls = lc.Limits.MaxTurns, lc.Limits.Timeout, lc.Limits.MaxToolCalls
	cfg.CompactAt = lc.CompactAt
	return nil
}

// loadConfig is [config.Load] with its errors made usage errors (exit 2).
func loadConfig(opts config.Options) (*config.Loaded, error) {
	lc, err := config.Load(opts)
	if err != nil {
		return nil, usageError{Err: err}
	}
	return lc, nil
}

// resolveProvider is [config.Loaded.ResolveProvider] with its errors made
// usage errors (exit 2).
func resolveProvider(lc *config.Loaded, lookupEnv func(string) (string, bool)) (config.ResolvedProvider, error) {
	rp, err := lc.ResolveProvider(lookupEnv)
	if err != nil {
		return rp, usageError{Err: err}
	}
	return rp, nil
}

// providerKeyVars lists every variable that may hold a provider key: the
// presets' and the configured [providers]' (kept out of the bash tool's
// environment).
func providerKeyVars(lc *config.Loaded) []string {
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

// newProviderClient builds the llm client for a resolved provider: for
// type openai the Responses client when its wire says so (or, with wire
// auto, when the model is served by the Responses API only), else the Chat
// Completions client, each keeping to the stream limits. hc (nil: the llm
// default) carries its HTTP traffic.
func newProviderClient(rp config.ResolvedProvider, limits llm.StreamLimits, hc *http.Client) streamer {
	if rp.Type == config.ProviderOpenAI && providerWire(rp) == config.WireResponses {
		return llm.NewResponses(llm.ResponsesConfig{Provider: rp.Name, BaseURL: rp.BaseURL, APIKey: rp.APIKey(), Headers: rp.Headers, Limits: limits, HTTPClient: hc})
	}
	if rp.Type == config.ProviderOpenAI {
		c := llm.OpenAIConfig{Provider: rp.Name, BaseURL: rp.BaseURL, APIKey: rp.APIKey(), Headers: rp.Headers,
			ThoughtTags: rp.ThoughtTags, Limits: limits, HTTPClient: hc}
		if rp.Name == "openai" {
			// OpenAI's own API wants max_completion_tokens from its
			// reasoning models on; compatible servers know max_tokens.
			c.MaxTokensField = "max_completion_tokens"
		}
		return llm.NewOpenAI(c)
	}
	return llm.NewAnthropic(llm.AnthropicConfig{BaseURL: rp.BaseURL, APIKey: rp.APIKey(), Headers: rp.Headers, PromptCaching: true, Limits: limits, HTTPClient: hc})
}

// providerWire returns the OpenAI API a type openai provider is spoken to
// with, deciding wire auto by the model.
func providerWire(rp config.ResolvedProvider) string {
	if rp.Wire == config.WireAuto {
		if llm.ResponsesOnly(rp.Model) {
			return config.WireResponses
		}
		return config.WireChat
	}
	return rp.Wire
}

// startSettings shows the configuration notes of lc (workspace keys
// ignored under the trust rule) and returns the run's budget for model.
// Without loaded settings there is no budget.
func startSettings(lc *config.Loaded, model string, notice func(string)) (*Budget, error) {
	if lc == nil {
		return nil, nil
	}
	for _, n := range lc.Notes {
		notice(n)
	}
	return newBudget(lc.Limits, model, lc.Prices)
}

// inlineMax is the stdin size above which stdin is spilled; 0 means the
// input default.
func inlineMax(lc *config.Loaded) int64 {
	if lc == nil {
		return 0
	}
	return int64(lc.Input.StdinInlineMax)
}

// streamLimits are the model client's limits: --max-response-size,
// --stream-idle-timeout and --stream-header-timeout; without loaded
// settings, llm's defaults.
func streamLimits(lc *config.Loaded) llm.StreamLimits {
	if lc == nil {
		return llm.StreamLimits{}
	}
	return streamLimitsOf(lc.Limits)
}

// streamLimitsOf converts the configured limits, where a timeout of 0 is
// none, to llm's, where none is negative.
func streamLimitsOf(l config.Limits) llm.StreamLimits {
	sl := llm.StreamLimits{MaxResponseBytes: int64(l.MaxResponseSize), IdleTimeout: l.StreamIdleTimeout, HeaderTimeout: l.StreamHeaderTimeout}
	if sl.IdleTimeout == 0 {
		sl.IdleTimeout = -1
	}
	if sl.HeaderTimeout == 0 {
		sl.HeaderTimeout = -1
	}
	return sl
}

// stdinMax is --stdin-max; 0 means the input default.
func stdinMax(lc *config.Loaded) int64 {
	if lc == nil {
		return 0
	}
	return int64(lc.Input.StdinMax)
}

// GoString is String, so that %#v of an execConfig cannot print its key.
func (cfg execConfig) GoString() string { return cfg.String() }

// newBudget is the run's budget under the loaded limits, priced from the
// loaded prices (see [config.LookupPrice]). A cost cap on a model without a
// known price is a usage error (exit 2): a cap that cannot be enforced must
// not look like one.
func newBudget(limits config.Limits, model string, prices map[string]config.Price) (*Budget, error) {
	b, err := agent.NewBudget(agent.BudgetLimits{MaxTokens: limits.MaxTokensTotal, MaxCost: limits.MaxCost}, model, priceFunc(prices))
	if err != nil {
		return nil, usageError{Err: err}
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
