// Package llmtest is a scripted model server for tests: an httptest server
// on 127.0.0.1 that answers the Anthropic Messages API (POST /v1/messages),
// the OpenAI Chat Completions API (POST /chat/completions and
// /v1/chat/completions) and the OpenAI Responses API (POST /responses and
// /v1/responses) from the same [Script], and records every request it
// received.
//
// The Nth request gets the Nth [Turn] of the script, whatever its protocol.
// A request beyond the script gets a 500 error naming the problem (and is
// recorded). Like the real APIs, the server answers 400 invalid_request_error
// without using up a turn when a request breaks the protocol: not streaming,
// no messages, or a tool call not answered by exactly one tool result right
// after it; for Anthropic also a missing max_tokens, a thinking budget below
// 1024 or not below max_tokens, a temperature with thinking, more than four
// cache breakpoints, a non-object tool input, an empty message, a blank text
// block, an error result without content or an unsigned thinking block; for
// Responses a function call output without its call, a reasoning item
// without encrypted content (store false) or without the item after it.
// A turn streams thinking, text and tool calls in that order (on the
// Responses wire: a reasoning item with a summary and encrypted content, a
// message item, function_call items),
// each piece of them as one event, then the stop reason and usage; or it
// fails with a [Fault]: an HTTP error status with any headers and body, or
// a fault inside the stream (a cut connection, a body that ends without the
// end marker, a malformed event, an error event) after a number of content
// pieces.
//
// In Go:
//
//	srv := llmtest.NewServer(llmtest.Script{Turns: []llmtest.Turn{
//		{ToolCalls: []llmtest.ToolCall{{Name: "read", Args: []string{`{"pa`, `th":"a`, `.go"}`}}}},
//		{Text: []string{"Hello", ", world"}, Usage: llmtest.Usage{InputTokens: 12, OutputTokens: 3}},
//	}})
//	defer srv.Close()
//	// Anthropic: BaseURL srv.URL(); OpenAI (both APIs): BaseURL srv.URL() + "/v1".
//	reqs := srv.Requests()
//
// The same script as JSON, for [ParseScript] (durations are Go duration
// strings; unknown fields are an error):
//
//	{"turns": [
//	  {"tool_calls": [{"name": "read", "args": ["{\"pa", "th\":\"a", ".go\"}"]}]},
//	  {"thinking": ["Let me think."],
//	   "text": ["Hello", ", world"], "delay": "5ms",
//	   "usage": {"input_tokens": 12, "output_tokens": 3, "cache_read_tokens": 2}},
//	  {"fault": {"status": 429, "headers": {"retry-after": "1"}, "type": "rate_limit_error", "message": "slow down"}},
//	  {"text": ["partial"], "fault": {"after": 1, "disconnect": true}},
//	  {"text": ["a", "b"], "fault": {"after": 1, "error_event": true, "type": "overloaded_error", "message": "Overloaded"}}
//	]}
//
// [Server.RecordTo] makes the server also write each request as a JSON file
// (request-001.json, ...: method, path, headers, body) into a directory, so
// a test driving a subprocess can grep what it sent.
//
// The package does not import package llm, so llm's own tests can use it.
//
// Only tests import it, and the demo command run/internal/llmserve.
package llmtest
