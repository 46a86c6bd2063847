package config

import (
	"testing"
)

func TestLookupPrice(t *testing.T) {
	t.Parallel()
	prices := DefaultPrices()
	prices["my/model.v1"] = Price{Input: 1, Output: 1}
	for _, tc := range []struct {
		model, want string
	}{
		{"claude-sonnet-5-5", "claude-sonnet-5-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-3-7-sonnet-latest", "claude-3-7-sonnet"},
		{"claude-3-5-haiku-20241022", "claude-3-5-haiku"},
		{"anthropic/claude-sonnet-5.5", "claude-sonnet-5-5"},
		{"anthropic/claude-opus-4.1", "claude-opus-4-1"},
		{"openai/gpt-4.1-mini", "gpt-4.1-mini"},
		{"gpt-4o-2024-08-06", "gpt-4o"},
		{"gpt-5.5", "gpt-5.5"},
		{"my/model.v1", "my/model.v1"},
		{"deepseek-chat", ""},
		{"openai/gpt-oss-120b", ""},
		{"gpt-4.1-2025", ""},
		{"", ""},
	} {
		_, got, ok := LookupPrice(prices, tc.model)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("LookupPrice(%q) = %q, %v; want %q", tc.model, got, ok, tc.want)
		}
	}
}

func TestDefaultPricesAreSane(t *testing.T) {
	t.Parallel()
	for model, p := range DefaultPrices() {
		if p.Input <= 0 || p.Output < p.Input || p.CacheRead <= 0 || p.CacheRead >= p.Input || p.CacheWrite < p.Input {
			t.Errorf("%s: implausible price %+v", model, p)
		}
	}
	// Every preset model sold by Anthropic or OpenAI has a price, so
	// --max-cost works with the defaults.
	for _, p := range Presets() {
		if p.Name != "anthropic" && p.Name != "openai" && p.Name != "openrouter" {
			continue
		}
		if _, _, ok := LookupPrice(DefaultPrices(), p.Model); !ok {
			t.Errorf("preset %s default model %s has no price", p.Name, p.Model)
		}
	}
}
