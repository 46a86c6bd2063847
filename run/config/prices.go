package config

import (
	"strings"
)

// Price is what a model costs, in USD per million tokens. CacheRead is the
// price of a prompt-cache hit and CacheWrite of writing the cache (for
// Anthropic, the 5-minute cache write; OpenAI charges no premium, so it
// equals Input).
type Price struct {
	Input      float64 `koanf:"input" json:"input"`
	Output     float64 `koanf:"output" json:"output"`
	CacheRead  float64 `koanf:"cache_read" json:"cache_read"`
	CacheWrite float64 `koanf:"cache_write" json:"cache_write"`
}

// DefaultPrices returns the built-in prices of current Anthropic, OpenAI and
// Gemini models, keyed by API model name (without date suffix; see [LookupPrice]).
//
// Sources, read in November 2026. Anthropic: the pricing page and the model
// overviews at platform.claude.com/docs (base input, 5-minute cache write,
// cache hit, output). Claude Haiku 5.5 is priced by prompt length; the table
// holds its higher band (prompts over 100K tokens), so a cap may stop early
// but never late. Claude Sonnet 5.5's cache hit is the $0.20 of its overview
// page; later reports of a cut to $0.10 are not applied (the higher price
// errs on the side of stopping). OpenAI: the rates of its pricing page
// (developers.openai.com/api/docs/pricing) as quoted by several price
// tables; the page itself could not be read here, so check gpt-5.5 and
// gpt-5.4 against it. Gemini: the rates quoted for the Gemini API's paid
// tier by price tables and model registries (ai.google.dev/pricing could not
// be read here); the Pro models are priced by prompt length and the table
// holds the higher band (prompts over 200K tokens), as for Haiku 5.5; the
// implicit cache has no write premium (storage of explicit caches is billed
// apart and not counted). Override any of them with [prices."model"] in a
// config file.
func DefaultPrices() map[string]Price {
	anthropic := func(in, out, read, write float64) Price {
		return Price{Input: in, Output: out, CacheRead: read, CacheWrite: write}
	}
	openai := func(in, out, cached float64) Price {
		return Price{Input: in, Output: out, CacheRead: cached, CacheWrite: in}
	}
	var (
		fable51 = anthropic(10, 50, 0.25, 12.50)
		fable5  = anthropic(10, 50, 1, 12.50)
		opus55  = anthropic(4, 20, 0.20, 5)
		opus45  = anthropic(5, 25, 0.50, 6.25) // Opus 4.5 to Opus 5
		opus4   = anthropic(15, 75, 1.50, 18.75)
		sonnet5 = anthropic(2, 10, 0.20, 2.50) // Sonnet 5 and 5.5
		sonnet4 = anthropic(3, 15, 0.30, 3.75) // Sonnet 3.7 to 4.6
		haiku55 = anthropic(0.50, 2.50, 0.05, 0.625)
		haiku45 = anthropic(1, 5, 0.10, 1.25)
		haiku35 = anthropic(0.80, 4, 0.08, 1)
		haiku3  = anthropic(0.25, 1.25, 0.03, 0.30)
	)
	return map[string]Price{
		"claude-fable-5-1":  fable51,
		"claude-fable-5":    fable5,
		"claude-opus-5-5":   opus55,
		"claude-opus-5":     opus45,
		"claude-opus-4-8":   opus45,
		"claude-opus-4-7":   opus45,
		"claude-opus-4-6":   opus45,
		"claude-opus-4-5":   opus45,
		"claude-opus-4-1":   opus4,
		"claude-opus-4-0":   opus4,
		"claude-opus-4":     opus4,
		"claude-sonnet-5-5": sonnet5,
		"claude-sonnet-5":   sonnet5,
		"claude-sonnet-4-6": sonnet4,
		"claude-sonnet-4-5": sonnet4,
		"claude-sonnet-4-0": sonnet4,
		"claude-sonnet-4":   sonnet4,
		"claude-3-7-sonnet": sonnet4,
		"claude-haiku-5-5":  haiku55,
		"claude-haiku-4-5":  haiku45,
		"claude-3-5-haiku":  haiku35,
		"claude-3-haiku":    haiku3,

		"gpt-5.5":      openai(5, 30, 0.50),
		"gpt-5.4":      openai(2.50, 15, 0.25),
		"gpt-5.4-mini": openai(0.75, 4.50, 0.075),
		"gpt-5.1":      openai(1.25, 10, 0.125),
		"gpt-5":        openai(1.25, 10, 0.125),
		"gpt-5-mini":   openai(0.25, 2, 0.025),
		"gpt-5-nano":   openai(0.05, 0.40, 0.005),
		"gpt-4.1":      openai(2, 8, 0.50),
		"gpt-4.1-mini": openai(0.40, 1.60, 0.10),
		"gpt-4.1-nano": openai(0.10, 0.40, 0.025),
		"gpt-4o":       openai(2.50, 10, 1.25),
		"gpt-4o-mini":  openai(0.15, 0.60, 0.075),
		"o3":           openai(2, 8, 0.50),
		"o4-mini":      openai(1.10, 4.40, 0.275),

		"gemini-3.5-flash":              openai(1.50, 9, 0.15),
		"gemini-3.1-pro-preview":        openai(4, 18, 0.40),
		"gemini-3-flash-preview":        openai(0.50, 3, 0.05),
		"gemini-3.1-flash-lite-preview": openai(0.25, 1.50, 0.025),
		"gemini-2.5-pro":                openai(2.50, 15, 0.25),
		"gemini-2.5-flash":              openai(0.30, 2.50, 0.03),
		"gemini-2.5-flash-lite":         openai(0.10, 0.40, 0.01),
	}
}

// LookupPrice finds the price of model in prices. It tries the exact name,
// then variants: without an OpenRouter-style vendor prefix
// ("anthropic/claude-sonnet-5.5" → "claude-sonnet-5-5", since OpenRouter
// passes the vendor's price through), without a snapshot date
// ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06") and without
// "-latest". It returns the name it matched.
func LookupPrice(prices map[string]Price, model string) (Price, string, bool) {
	for _, name := range priceCandidates(model) {
		if p, ok := prices[name]; ok {
			return p, name, true
		}
	}
	return Price{}, "", false
}

// priceCandidates lists the names LookupPrice tries, most specific first.
func priceCandidates(model string) []string {
	names := []string{model}
	if vendor, rest, ok := strings.Cut(model, "/"); ok {
		switch vendor {
		case "anthropic":
			names = append(names, strings.ReplaceAll(rest, ".", "-"))
		case "openai":
			names = append(names, rest)
		}
	}
	for _, n := range names {
		if s := stripModelSuffix(n); s != n {
			names = append(names, s)
		}
	}
	return names
}

// stripModelSuffix removes "-latest", "-YYYYMMDD" or "-YYYY-MM-DD".
func stripModelSuffix(s string) string {
	if t, ok := strings.CutSuffix(s, "-latest"); ok {
		return t
	}
	digits := func(t string) bool {
		for _, r := range t {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
	if n := len(s); n > 9 && s[n-9] == '-' && digits(s[n-8:]) {
		return s[:n-9]
	}
	if n := len(s); n > 11 && s[n-11] == '-' && s[n-3] == '-' && s[n-6] == '-' &&
		digits(s[n-10:n-6]) && digits(s[n-5:n-3]) && digits(s[n-2:]) {
		return s[:n-11]
	}
	return s
}
