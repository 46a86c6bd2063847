package llmtest

import "fmt"

// responses streams the turn as Responses API events: a reasoning item
// (with a summary and encrypted content) for the thinking, a message item
// for the text and a function_call item per tool call, each piece one
// delta event, then response.completed, or response.incomplete when the
// turn stops at max_tokens.
func (st *streamer) responses() {
	errorEvent := func() error {
		typ, msg := st.errorFields()
		return st.respEvent("error", map[string]any{"code": typ, "message": msg, "param": nil})
	}
	_ = st.responsesEvents(errorEvent)
}

// respEvent writes one event with its type in both the event name and
// the data, and a sequence number.
func (st *streamer) respEvent(typ string, fields map[string]any) error {
	fields["type"] = typ
	fields["sequence_number"] = st.seq
	st.seq++
	return st.event(typ, fields)
}

// respPiece is [streamer.piece] for the Responses protocol.
func (st *streamer) respPiece(typ string, fields map[string]any, errorEvent func() error) error {
	fields["type"] = typ
	fields["sequence_number"] = st.seq
	st.seq++
	return st.piece(typ, fields, errorEvent)
}

func (st *streamer) responsesEvents(errorEvent func() error) error {
	t := st.turn
	id := fmt.Sprintf("resp_llmtest_%d", st.n)
	response := func(status string, extra map[string]any) map[string]any {
		r := map[string]any{"id": id, "object": "response", "status": status, "model": st.model, "output": []any{}, "store": false}
		for k, v := range extra {
			r[k] = v
		}
		return r
	}
	if err := st.respEvent("response.created", map[string]any{"response": response("in_progress", nil)}); err != nil {
		return err
	}
	out := 0
	if len(t.Thinking) > 0 {
		if err := st.respReasoning(out, errorEvent); err != nil {
			return err
		}
		out++
	}
	if len(t.Text) > 0 {
		if err := st.respMessage(out, errorEvent); err != nil {
			return err
		}
		out++
	}
	for i, c := range t.ToolCalls {
		if err := st.respCall(out, i, c, errorEvent); err != nil {
			return err
		}
		out++
	}
	if err := st.fault(true, errorEvent); err != nil {
		return err
	}
	u := t.Usage
	input := u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
	usage := map[string]any{"input_tokens": input, "input_tokens_details": map[string]int{"cached_tokens": u.CacheReadTokens},
		"output_tokens": u.OutputTokens, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
		"total_tokens": input + u.OutputTokens}
	if st.stopReason() == "max_tokens" {
		return st.respEvent("response.incomplete", map[string]any{"response": response("incomplete",
			map[string]any{"usage": usage, "incomplete_details": map[string]string{"reason": "max_output_tokens"}})})
	}
	return st.respEvent("response.completed", map[string]any{"response": response("completed", map[string]any{"usage": usage})})
}

func (st *streamer) respReasoning(out int, errorEvent func() error) error {
	id := fmt.Sprintf("rs_llmtest_%d", st.n)
	if err := st.respEvent("response.output_item.added", map[string]any{"output_index": out,
		"item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}}); err != nil {
		return err
	}
	if err := st.respEvent("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": out,
		"summary_index": 0, "part": map[string]string{"type": "summary_text", "text": ""}}); err != nil {
		return err
	}
	text := ""
	for _, p := range st.turn.Thinking {
		text += p
		if err := st.respPiece("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": out,
			"summary_index": 0, "delta": p}, errorEvent); err != nil {
			return err
		}
	}
	return st.respEvent("response.output_item.done", map[string]any{"output_index": out, "item": map[string]any{
		"id": id, "type": "reasoning", "encrypted_content": fmt.Sprintf("enc_llmtest_%d", st.n),
		"summary": []any{map[string]string{"type": "summary_text", "text": text}}}})
}

func (st *streamer) respMessage(out int, errorEvent func() error) error {
	id := fmt.Sprintf("msg_llmtest_%d", st.n)
	if err := st.respEvent("response.output_item.added", map[string]any{"output_index": out,
		"item": map[string]any{"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}}); err != nil {
		return err
	}
	text := ""
	for _, p := range st.turn.Text {
		text += p
		if err := st.respPiece("response.output_text.delta", map[string]any{"item_id": id, "output_index": out,
			"content_index": 0, "delta": p}, errorEvent); err != nil {
			return err
		}
	}
	return st.respEvent("response.output_item.done", map[string]any{"output_index": out, "item": map[string]any{
		"id": id, "type": "message", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}})
}

func (st *streamer) respCall(out, i int, c ToolCall, errorEvent func() error) error {
	id := fmt.Sprintf("fc_llmtest_%d_%d", st.n, i)
	callID := st.callID(i, c)
	if err := st.respEvent("response.output_item.added", map[string]any{"output_index": out, "item": map[string]any{
		"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": callID, "name": c.Name}}); err != nil {
		return err
	}
	args := ""
	for _, p := range c.Args {
		args += p
		if err := st.respPiece("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": out,
			"delta": p}, errorEvent); err != nil {
			return err
		}
	}
	return st.respEvent("response.output_item.done", map[string]any{"output_index": out, "item": map[string]any{
		"id": id, "type": "function_call", "status": "completed", "arguments": args, "call_id": callID, "name": c.Name}})
}
