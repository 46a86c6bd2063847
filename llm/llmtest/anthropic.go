package llmtest

import "fmt"

// anthropic streams the turn as Messages API events.
func (st *streamer) anthropic() {
	errorEvent := func() error {
		typ, msg := st.errorFields()
		return st.event("error", map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	}
	_ = st.anthropicEvents(errorEvent)
}

func (st *streamer) anthropicEvents(errorEvent func() error) error {
	t := st.turn
	u := t.Usage
	if err := st.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_llmtest_%d", st.n), "type": "message", "role": "assistant", "model": st.model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{
			"input_tokens": u.InputTokens, "output_tokens": 1,
			"cache_creation_input_tokens": u.CacheCreationTokens, "cache_read_input_tokens": u.CacheReadTokens,
		},
	}}); err != nil {
		return err
	}
	if err := st.event("ping", map[string]string{"type": "ping"}); err != nil {
		return err
	}
	index := 0
	block := func(start map[string]any, pieces []string, delta func(string) map[string]any, extra ...map[string]any) error {
		if err := st.event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start}); err != nil {
			return err
		}
		for _, p := range pieces {
			if err := st.piece("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": delta(p)}, errorEvent); err != nil {
				return err
			}
		}
		for _, d := range extra {
			if err := st.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d}); err != nil {
				return err
			}
		}
		if err := st.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}); err != nil {
			return err
		}
		index++
		return nil
	}
	if len(t.Thinking) > 0 {
		sig := map[string]any{"type": "signature_delta", "signature": fmt.Sprintf("sig_llmtest_%d", st.n)}
		if err := block(map[string]any{"type": "thinking", "thinking": ""}, t.Thinking,
			func(p string) map[string]any { return map[string]any{"type": "thinking_delta", "thinking": p} }, sig); err != nil {
			return err
		}
	}
	if len(t.Text) > 0 {
		if err := block(map[string]any{"type": "text", "text": ""}, t.Text,
			func(p string) map[string]any { return map[string]any{"type": "text_delta", "text": p} }); err != nil {
			return err
		}
	}
	for i, c := range t.ToolCalls {
		start := map[string]any{"type": "tool_use", "id": st.callID(i, c), "name": c.Name, "input": map[string]any{}}
		if err := block(start, c.Args,
			func(p string) map[string]any { return map[string]any{"type": "input_json_delta", "partial_json": p} }); err != nil {
			return err
		}
	}
	if err := st.fault(true, errorEvent); err != nil {
		return err
	}
	if err := st.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": st.stopReason(), "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": u.OutputTokens}}); err != nil {
		return err
	}
	return st.event("message_stop", map[string]string{"type": "message_stop"})
}
