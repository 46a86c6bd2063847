package agent

import "github.com/rubichan/rubichan/llm"

// Price is what a model's tokens cost, in USD per million tokens of each
// kind.
type Price struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
}

// Cost returns the USD cost of u at price p. [llm.Usage] counts input
// tokens billed at the full rate apart from cache reads and writes, for
// both providers, so each count is multiplied by its own price.
func (p Price) Cost(u llm.Usage) float64 {
	return (float64(u.InputTokens)*p.Input +
		float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheCreationTokens)*p.CacheWrite) / 1e6
}

// PriceFunc looks up the price of a model; false when it is not known.
type PriceFunc func(model string) (Price, bool)
