// Package llm talks to model providers: provider-neutral messages, tool
// specs, requests and stream events, and three streaming clients over
// server-sent events — [AnthropicClient] for the Anthropic Messages API,
// [OpenAIClient] for every OpenAI-compatible Chat Completions endpoint
// (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp, LM Studio, Groq, DeepSeek,
// Mistral, Gemini's OpenAI-compatible endpoint) and [ResponsesClient] for
// OpenAI's Responses API.
//
// All clients have the same method, Stream, which returns a [*Stream] of
// [Event] values: text and thinking deltas, complete tool calls, usage and a
// final stop event. One accumulator assembles the deltas into the final
// assistant [Message] and rejects protocol violations.
//
// Failures are classified into a typed [*APIError] (see [ErrorKind]) so the
// caller can retry the transient ones with [Retry] and stop cleanly on the
// fatal ones. The package never retries by itself and never puts an API key
// into an error.
//
// The package imports no other rubichan package. Test helpers live in
// llm/llmtest, a scripted model server speaking all three protocols.
//
// The engine (run/agent), the harness, the sinks, the front ends and the
// command layer import it; toolkit and policy never do (DESIGN's rule).
package llm
