package llm

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchEvents is the size of the benchmark streams, in SSE events.
const benchEvents = 10000

// anthropicBenchStream returns a stream of exactly n events: a text block
// and a tool call whose input arrives in many pieces.
func anthropicBenchStream(n int) []byte {
	var b strings.Builder
	w := func(ev, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", ev, data) }
	w("message_start", `{"type":"message_start","message":{"id":"msg_b","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":100,"output_tokens":1}}}`)
	w("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	fixed := 8 // events outside the two delta loops
	deltas := n - fixed
	for i := 0; i < deltas/2; i++ {
		w("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"some words "}}`)
	}
	w("content_block_stop", `{"type":"content_block_stop","index":0}`)
	w("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"write","input":{}}}`)
	w("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"text\":\""}}`)
	for i := 0; i < deltas-deltas/2-1; i++ {
		w("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"abc def "}}`)
	}
	w("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"}"}}`)
	w("content_block_stop", `{"type":"content_block_stop","index":1}`)
	w("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5000}}`)
	w("message_stop", `{"type":"message_stop"}`)
	return []byte(b.String())
}

// openaiBenchStream returns a stream of exactly n events: text chunks and
// a tool call whose arguments arrive in many pieces.
func openaiBenchStream(n int) []byte {
	var b strings.Builder
	w := func(data string) { fmt.Fprintf(&b, "data: %s\n\n", data) }
	const pre = `{"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`
	fixed := 4
	deltas := n - fixed
	for i := 0; i < deltas/2; i++ {
		w(pre + `{"content":"some words "},"finish_reason":null}]}`)
	}
	w(pre + `{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"write","arguments":""}}]},"finish_reason":null}]}`)
	for i := 0; i < deltas-deltas/2; i++ {
		w(pre + `{"tool_calls":[{"index":0,"function":{"arguments":"abc def "}}]},"finish_reason":null}]}`)
	}
	w(pre + `{},"finish_reason":"tool_calls"}]}`)
	w(`{"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5000}}`)
	w(`[DONE]`)
	return []byte(b.String())
}

// responsesBenchStream returns a Responses stream of exactly n events: a
// message whose text arrives in many deltas and a function call whose
// arguments arrive in many pieces.
func responsesBenchStream(n int) []byte {
	var b strings.Builder
	w := func(typ, data string) { fmt.Fprintf(&b, "event: %s\ndata: {\"type\":\"%s\",%s}\n\n", typ, typ, data) }
	w("response.created", `"response":{"id":"resp_b","status":"in_progress","output":[]},"sequence_number":0`)
	w("response.output_item.added", `"output_index":0,"item":{"id":"msg_b","type":"message","status":"in_progress","content":[],"role":"assistant"},"sequence_number":1`)
	fixed := 6
	deltas := n - fixed
	for i := 0; i < deltas/2; i++ {
		w("response.output_text.delta", `"item_id":"msg_b","output_index":0,"content_index":0,"delta":"some words ","logprobs":[],"obfuscation":"ab","sequence_number":2`)
	}
	w("response.output_item.done", `"output_index":0,"item":{"id":"msg_b","type":"message","status":"completed","content":[],"role":"assistant"},"sequence_number":3`)
	w("response.output_item.added", `"output_index":1,"item":{"id":"fc_b","type":"function_call","status":"in_progress","arguments":"","call_id":"call_b","name":"write"},"sequence_number":4`)
	for i := 0; i < deltas-deltas/2; i++ {
		w("response.function_call_arguments.delta", `"item_id":"fc_b","output_index":1,"delta":"abc def ","obfuscation":"q","sequence_number":5`)
	}
	w("response.output_item.done", `"output_index":1,"item":{"id":"fc_b","type":"function_call","status":"completed","arguments":"","call_id":"call_b","name":"write"},"sequence_number":6`)
	w("response.completed", `"response":{"id":"resp_b","status":"completed","usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":0},"output_tokens":5000,"output_tokens_details":{"reasoning_tokens":0}}},"sequence_number":7`)
	return []byte(b.String())
}

// partsBenchStream returns a Chat Completions stream of exactly n events
// whose content comes as lists of parts (Mistral): thinking parts, then
// text parts, then a tool call.
func partsBenchStream(n int) []byte {
	var b strings.Builder
	w := func(data string) { fmt.Fprintf(&b, "data: %s\n\n", data) }
	const pre = `{"id":"b","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`
	fixed := 4
	deltas := n - fixed
	for i := 0; i < deltas/2; i++ {
		w(pre + `{"content":[{"type":"thinking","thinking":[{"type":"text","text":"some thought "}]}]},"finish_reason":null}]}`)
	}
	w(pre + `{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"write","arguments":""}}]},"finish_reason":null}]}`)
	for i := 0; i < deltas-deltas/2; i++ {
		w(pre + `{"content":[{"type":"text","text":"some words "}]},"finish_reason":null}]}`)
	}
	w(pre + `{},"finish_reason":"tool_calls"}]}`)
	w(`{"id":"b","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5000}}`)
	w(`[DONE]`)
	return []byte(b.String())
}

// geminiBenchStream returns a Chat Completions stream of exactly n events
// in Gemini's form: thought-tagged content, then the answer, then a tool
// call with a thought signature.
func geminiBenchStream(n int) []byte {
	var b strings.Builder
	w := func(data string) { fmt.Fprintf(&b, "data: %s\n\n", data) }
	const pre = `{"id":"g","object":"chat.completion.chunk","created":1,"model":"gemini-2.5-pro","choices":[{"index":0,"delta":{"role":"assistant",`
	fixed := 3
	deltas := n - fixed
	w(pre + `"content":"<thought>"},"finish_reason":null}]}`)
	for i := 0; i < deltas/2; i++ {
		w(pre + `"content":"some thought "},"finish_reason":null}]}`)
	}
	w(pre + `"content":"</thought>"},"finish_reason":null}]}`)
	for i := 0; i < deltas-deltas/2-1; i++ {
		w(pre + `"content":"some words "},"finish_reason":null}]}`)
	}
	w(pre + `"tool_calls":[{"extra_content":{"google":{"thought_signature":"c2ln"}},"function":{"arguments":"{}","name":"write"},"id":"f1","type":"function","index":0}]},"finish_reason":"tool_calls"}]}`)
	w(`[DONE]`)
	return []byte(b.String())
}

func benchStream(b *testing.B, provider string, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		dec := testDecoder(provider)
		s := newStream(provider, io.NopCloser(bytes.NewReader(data)), dec, nil)
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
		if len(s.Message().ToolUses()) != 1 {
			b.Fatal("tool call missing")
		}
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkAnthropicStream10k(b *testing.B) {
	benchStream(b, "anthropic", anthropicBenchStream(benchEvents))
}

func BenchmarkOpenAIStream10k(b *testing.B) {
	benchStream(b, "openai", openaiBenchStream(benchEvents))
}

func BenchmarkResponsesStream10k(b *testing.B) {
	benchStream(b, "responses", responsesBenchStream(benchEvents))
}

func BenchmarkOpenAIContentParts10k(b *testing.B) {
	benchStream(b, "openai", partsBenchStream(benchEvents))
}

func BenchmarkGeminiStream10k(b *testing.B) {
	benchStream(b, "gemini", geminiBenchStream(benchEvents))
}

func TestBenchStreamsHaveTenThousandEvents(t *testing.T) {
	t.Parallel()
	for name, data := range map[string][]byte{"anthropic": anthropicBenchStream(benchEvents), "openai": openaiBenchStream(benchEvents),
		"responses": responsesBenchStream(benchEvents), "parts": partsBenchStream(benchEvents), "gemini": geminiBenchStream(benchEvents)} {
		if n := bytes.Count(data, []byte("\n\n")); n != benchEvents {
			t.Errorf("%s bench stream has %d events, want %d", name, n, benchEvents)
		}
	}
}
