package llm

// Prefiller is a client whose API continues a conversation that ends with
// an assistant message of text: the answer carries on from that text
// (Anthropic's prefill) instead of starting anew. The OpenAI wires do not
// offer it.
type Prefiller interface {
	// Prefills reports whether req, ended with an assistant message of
	// text only, is continued from that text. The text must not end with
	// whitespace (the Anthropic API refuses it).
	Prefills(req Request) bool
}

// Prefills reports whether req may end with an assistant message to
// continue: not with extended thinking on, where the API refuses a
// prefill.
func (c *AnthropicClient) Prefills(req Request) bool { return req.ThinkingBudget <= 0 }
