package config

// Window is what a model can take: its context window (prompt and answer
// together) and the most output tokens it writes in one answer.
type Window struct {
	ContextWindow int `koanf:"context_window" json:"context_window"`
	MaxOutput     int `koanf:"max_output" json:"max_output"`
}

// UnknownWindow is the window assumed for a model that is neither in
// [DefaultWindows] nor configured: small enough for any current model a
// coding agent would use, so that compaction comes early rather than
// never.
var unknownWindow = Window{ContextWindow: 128_000, MaxOutput: 16_000}

// UnknownWindow returns the conservative window assumed for a model whose
// window is not known.
func UnknownWindow() Window { return unknownWindow }

// DefaultWindows returns the built-in context windows and output limits of
// current Anthropic, OpenAI and Gemini models and of the presets' default
// models, keyed like [DefaultPrices] (see [LookupWindow]). Sources: the
// providers' model overview pages as read in November 2026; a model with a
// larger window on request (Anthropic's 1M beta) is listed with its
// standard window. Override any of them with [models."name"] in a config
// file.
func DefaultWindows() map[string]Window {
	w := func(ctx, out int) Window { return Window{ContextWindow: ctx, MaxOutput: out} }
	return map[string]Window{
		"claude-fable-5-1":  w(200_000, 64_000),
		"claude-fable-5":    w(200_000, 64_000),
		"claude-opus-5-5":   w(200_000, 64_000),
		"claude-opus-5":     w(200_000, 64_000),
		"claude-opus-4-8":   w(200_000, 64_000),
		"claude-opus-4-7":   w(200_000, 64_000),
		"claude-opus-4-6":   w(200_000, 64_000),
		"claude-opus-4-5":   w(200_000, 64_000),
		"claude-opus-4-1":   w(200_000, 32_000),
		"claude-opus-4-0":   w(200_000, 32_000),
		"claude-opus-4":     w(200_000, 32_000),
		"claude-sonnet-5-5": w(200_000, 64_000),
		"claude-sonnet-5":   w(200_000, 64_000),
		"claude-sonnet-4-6": w(200_000, 64_000),
		"claude-sonnet-4-5": w(200_000, 64_000),
		"claude-sonnet-4-0": w(200_000, 64_000),
		"claude-sonnet-4":   w(200_000, 64_000),
		"claude-3-7-sonnet": w(200_000, 64_000),
		"claude-haiku-5-5":  w(200_000, 64_000),
		"claude-haiku-4-5":  w(200_000, 64_000),
		"claude-3-5-haiku":  w(200_000, 8_192),
		"claude-3-haiku":    w(200_000, 4_096),

		"gpt-5.5":      w(400_000, 128_000),
		"gpt-5.4":      w(400_000, 128_000),
		"gpt-5.4-mini": w(400_000, 128_000),
		"gpt-5.1":      w(400_000, 128_000),
		"gpt-5":        w(400_000, 128_000),
		"gpt-5-mini":   w(400_000, 128_000),
		"gpt-5-nano":   w(400_000, 128_000),
		"gpt-4.1":      w(1_047_576, 32_768),
		"gpt-4.1-mini": w(1_047_576, 32_768),
		"gpt-4.1-nano": w(1_047_576, 32_768),
		"gpt-4o":       w(128_000, 16_384),
		"gpt-4o-mini":  w(128_000, 16_384),
		"o3":           w(200_000, 100_000),
		"o4-mini":      w(200_000, 100_000),
		"gpt-oss-120b": w(131_072, 32_768),
		"gpt-oss-20b":  w(131_072, 32_768),
		"gpt-oss:20b":  w(131_072, 32_768),

		"deepseek-chat":     w(128_000, 8_000),
		"deepseek-reasoner": w(128_000, 64_000),

		"gemini-3.5-flash":              w(1_048_576, 65_536),
		"gemini-3.1-pro-preview":        w(1_048_576, 65_536),
		"gemini-3-flash-preview":        w(1_048_576, 65_536),
		"gemini-3.1-flash-lite-preview": w(1_048_576, 65_536),
		"gemini-2.5-pro":                w(1_048_576, 65_536),
		"gemini-2.5-flash":              w(1_048_576, 65_536),
		"gemini-2.5-flash-lite":         w(1_048_576, 65_536),
	}
}

// LookupWindow finds the window of model in windows, trying the same
// variants of the name as [LookupPrice] (an OpenRouter-style vendor prefix,
// a snapshot date, "-latest"). It returns false when none matched.
func LookupWindow(windows map[string]Window, model string) (Window, bool) {
	key, ok := WindowKey(windows, model)
	return windows[key], ok
}

// WindowKey returns the key of windows that model resolves to, as
// [LookupWindow] finds it, and false when none matched.
func WindowKey(windows map[string]Window, model string) (string, bool) {
	names := priceCandidates(model)
	if _, rest, ok := cutVendor(model); ok {
		names = append(names, rest) // "openai/gpt-oss-120b" → "gpt-oss-120b"
	}
	for _, name := range names {
		if _, ok := windows[name]; ok {
			return name, true
		}
	}
	return "", false
}

func cutVendor(model string) (string, string, bool) {
	for i := 0; i < len(model); i++ {
		if model[i] == '/' {
			return model[:i], model[i+1:], true
		}
	}
	return "", "", false
}
