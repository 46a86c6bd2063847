package llmtest

import (
	"fmt"
	"io"
)

// finishReason maps an Anthropic stop reason to OpenAI's finish_reason;
// unknown reasons pass through.
func finishReason(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "refusal":
		return "content_filter"
	}
	return stop
}

// openai streams the turn as Chat Completions chunks.
func (st *streamer) openai(includeUsage bool) {
	errorEvent := func() error {
		typ, msg := st.errorFields()
		return st.event("", map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": typ}})
	}
	_ = st.openaiEvents(includeUsage, errorEvent)
}

func (st *streamer) openaiEvents(includeUsage bool, errorEvent func() error) error {
	t := st.turn
	id := fmt.Sprintf("chatcmpl-llmtest-%d", st.n)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": st.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if err := st.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil)); err != nil {
		return err
	}
	for _, p := range t.Thinking {
		if err := st.piece("", chunk(map[string]any{"reasoning_content": p}, nil), errorEvent); err != nil {
			return err
		}
	}
	for _, p := range t.Text {
		if err := st.piece("", chunk(map[string]any{"content": p}, nil), errorEvent); err != nil {
			return err
		}
	}
	for i, c := range t.ToolCalls {
		first := map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": st.callID(i, c), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}
		if err := st.event("", chunk(first, nil)); err != nil {
			return err
		}
		for _, p := range c.Args {
			d := map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}
			if err := st.piece("", chunk(d, nil), errorEvent); err != nil {
				return err
			}
		}
	}
	if err := st.fault(true, errorEvent); err != nil {
		return err
	}
	if err := st.event("", chunk(map[string]any{}, finishReason(st.stopReason()))); err != nil {
		return err
	}
	if includeUsage {
		u := t.Usage
		prompt := u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
		if err := st.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": st.model,
			"choices": []any{},
			"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": u.OutputTokens,
				"total_tokens":          prompt + u.OutputTokens,
				"prompt_tokens_details": map[string]int{"cached_tokens": u.CacheReadTokens}}}); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(st.w, "data: [DONE]\n\n"); err != nil {
		return errStop{}
	}
	_ = st.rc.Flush()
	return nil
}
