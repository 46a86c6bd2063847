package llm

import (
	"encoding/json"
	"strings"

	"github.com/tmaxmax/go-sse"
)

// responsesDecoder reads the Responses API's stream: response.* events,
// each naming its type in the data. Output items (messages, function calls,
// reasoning) are announced by response.output_item.added with their
// output_index, filled by delta events addressed to that index, and
// completed by response.output_item.done; the stream ends with
// response.completed, response.incomplete or response.failed, or an error
// event. There is no [DONE]. Unknown event and item types are ignored (the
// API has many: web search calls, code interpreter, audio), and so is every
// event addressed to an item of an unknown type. The type of an event, and
// of the item it carries, is decoded first and the rest only for the types
// used, so what the others hold, in whatever shape, cannot fail the
// answer (gpt-5.x sends a tool_search_call item with an object
// `arguments`, and a response.shell_call_output_content.delta event with
// an object `delta`).
type responsesDecoder struct {
	items   []int // block index of each output item, by output_index; -1 for unknown items
	refused bool  // the model sent a refusal
	ev      respEvent
	item    respOutItem
}

// respType is what is decoded first of an event or an item: its type.
type respType struct {
	Type string `json:"type"`
}

type respEvent struct {
	Type         string          `json:"-"` // decoded first, as respType
	OutputIndex  int             `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Delta        string          `json:"delta"`
	Item         json.RawMessage `json:"item"` // decoded by item, once its type is known
	Response     respBody        `json:"response"`
	Error        json.RawMessage `json:"error"`
}

// respUsed reports whether the decoder uses events of type typ; the others
// are not decoded further.
func respUsed(typ string) bool {
	switch typ {
	case "response.output_item.added", "response.output_item.done",
		"response.output_text.delta", "response.refusal.delta",
		"response.reasoning_summary_text.delta", "response.reasoning_text.delta",
		"response.reasoning_summary_part.added", "response.function_call_arguments.delta",
		"response.completed", "response.incomplete", "response.failed", "error":
		return true
	}
	return false
}

// respItemUsed reports whether the decoder uses output items of type typ.
func respItemUsed(typ string) bool {
	return typ == "message" || typ == "function_call" || typ == "reasoning"
}

type respOutItem struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	EncryptedContent string `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
}

type respBody struct {
	ID                string          `json:"id"`
	Model             string          `json:"model"`
	Usage             *respUsage      `json:"usage"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// usage converts to the neutral shape, where InputTokens excludes cached
// tokens.
func (u *respUsage) usage() Usage {
	var out Usage
	if u.InputTokensDetails != nil {
		out.CacheReadTokens = min(max(u.InputTokensDetails.CachedTokens, 0), u.InputTokens)
	}
	if u.OutputTokensDetails != nil {
		out.ReasoningTokens = u.OutputTokensDetails.ReasoningTokens
	}
	out.InputTokens, out.OutputTokens = u.InputTokens-out.CacheReadTokens, u.OutputTokens
	return out
}

func newResponsesDecoder() *responsesDecoder { return &responsesDecoder{} }

func (d *responsesDecoder) handle(ev sse.Event, acc *accumulator) (bool, error) {
	if ev.Data == "" || ev.Data == "[DONE]" {
		return false, nil
	}
	data := []byte(ev.Data)
	var head respType
	if err := json.Unmarshal(data, &head); err != nil {
		return false, protoErr(err, "decode %q event", ev.Type)
	}
	typ := head.Type
	if typ == "" {
		typ = ev.Type
	}
	if !respUsed(typ) {
		return false, nil
	}
	e := &d.ev
	*e = respEvent{Type: typ, OutputIndex: -1}
	if err := json.Unmarshal(data, e); err != nil {
		return false, protoErr(err, "decode %q event", typ)
	}
	switch typ {
	case "response.output_item.added":
		return false, d.added(e, acc)
	case "response.output_text.delta", "response.refusal.delta":
		d.refused = d.refused || typ == "response.refusal.delta"
		return false, d.appendTo(e, BlockText, acc)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return false, d.appendTo(e, BlockReasoning, acc)
	case "response.reasoning_summary_part.added":
		if e.SummaryIndex > 0 {
			e.Delta = "\n\n"
			return false, d.appendTo(e, BlockReasoning, acc)
		}
	case "response.function_call_arguments.delta":
		return false, d.appendTo(e, BlockToolUse, acc)
	case "response.output_item.done":
		return false, d.done(e, acc)
	case "response.completed", "response.incomplete":
		acc.respID, acc.respModel = e.Response.ID, e.Response.Model
		return true, d.complete(typ, &e.Response, acc)
	case "response.failed":
		if len(e.Response.Error) == 0 || string(e.Response.Error) == "null" {
			return true, &APIError{Kind: KindServer, Message: "response failed", Retryable: true}
		}
		return true, eventError(e.Response.Error)
	case "error":
		// {"type":"error","code","message"}, or from some servers the
		// error nested as in Chat Completions.
		if len(e.Error) > 0 && e.Error[0] == '{' {
			return true, eventError(e.Error)
		}
		return true, eventError(json.RawMessage(ev.Data))
	}
	return false, nil
}

// decodeItem decodes the item of e: its type first, then, for an item of
// a type the decoder uses, the rest; an item of another type comes back
// with its type only.
func (d *responsesDecoder) decodeItem(e *respEvent) (*respOutItem, error) {
	it := &d.item
	*it = respOutItem{}
	if len(e.Item) == 0 || string(e.Item) == "null" {
		return it, nil
	}
	var head respType
	if err := json.Unmarshal(e.Item, &head); err != nil {
		return nil, protoErr(err, "decode the item of %q", e.Type)
	}
	if !respItemUsed(head.Type) {
		it.Type = head.Type
		return it, nil
	}
	if err := json.Unmarshal(e.Item, it); err != nil {
		return nil, protoErr(err, "decode the item of %q", e.Type)
	}
	return it, nil
}

// block returns the block index of output item i, or -1 for an item of
// an unknown type; an index never announced is a protocol error.
func (d *responsesDecoder) block(i int, op string) (int, error) {
	if i < 0 || i >= len(d.items) {
		return 0, protoErr(nil, "%s for unknown output item %d", op, i)
	}
	return d.items[i], nil
}

// added opens the block of a new output item.
func (d *responsesDecoder) added(e *respEvent, acc *accumulator) error {
	if e.OutputIndex != len(d.items) {
		return protoErr(nil, "output item %d added out of order (expected %d)", e.OutputIndex, len(d.items))
	}
	it, err := d.decodeItem(e)
	if err != nil {
		return err
	}
	var b Block
	switch it.Type {
	case "message":
		b = Block{Kind: BlockText}
	case "function_call":
		b = Block{Kind: BlockToolUse, ID: it.CallID, Name: it.Name, Input: json.RawMessage(it.Arguments)}
	case "reasoning":
		b = Block{Kind: BlockReasoning, ID: it.ID}
	default:
		d.items = append(d.items, -1)
		return nil
	}
	d.items = append(d.items, len(acc.blocks))
	if err := acc.start(len(acc.blocks), b); err != nil {
		return protoErr(nil, "%s", err)
	}
	return nil
}

// appendTo adds a delta to the block of its output item, which must be of
// kind; deltas for items of unknown types are ignored.
func (d *responsesDecoder) appendTo(e *respEvent, kind BlockKind, acc *accumulator) error {
	i, err := d.block(e.OutputIndex, e.Type)
	if err != nil || i < 0 {
		return err
	}
	if kind == BlockToolUse {
		err = acc.appendInput(i, e.Delta)
	} else {
		err = acc.appendText(i, kind, e.Delta)
	}
	if err != nil {
		return protoErr(nil, "%s", err)
	}
	return nil
}

// done completes an output item with what its final form adds: the
// encrypted reasoning, and the text, summary or arguments when the server
// sent no deltas for them.
func (d *responsesDecoder) done(e *respEvent, acc *accumulator) error {
	i, err := d.block(e.OutputIndex, e.Type)
	if err != nil || i < 0 {
		return err
	}
	b := &acc.blocks[i]
	if !b.open {
		return protoErr(nil, "output item %d done twice", e.OutputIndex)
	}
	it, err := d.decodeItem(e)
	if err != nil {
		return err
	}
	switch b.kind {
	case BlockReasoning:
		b.data = it.EncryptedContent
		if b.buf.Len() == 0 {
			var parts []string
			for _, s := range it.Summary {
				parts = append(parts, s.Text)
			}
			err = acc.appendText(i, BlockReasoning, strings.Join(parts, "\n\n"))
		}
	case BlockText:
		if b.buf.Len() == 0 {
			var sb strings.Builder
			for _, c := range it.Content {
				sb.WriteString(c.Text)
				sb.WriteString(c.Refusal)
				d.refused = d.refused || c.Refusal != ""
			}
			err = acc.appendText(i, BlockText, sb.String())
		}
	case BlockToolUse:
		if b.id == "" {
			b.id = it.CallID
		}
		if b.name == "" {
			b.name = it.Name
		}
		if b.buf.Len() == 0 && it.Arguments != "" {
			err = acc.appendInput(i, it.Arguments)
		}
	}
	if err == nil {
		err = acc.stopBlock(i)
	}
	if err != nil {
		return protoErr(nil, "%s", err)
	}
	return nil
}

// complete ends the stream on response.completed or response.incomplete.
// After completed, items the server left open are closed; after
// incomplete (the answer hit max_output_tokens or a content filter) a
// function call still open is left out, as on a cut stream.
func (d *responsesDecoder) complete(typ string, r *respBody, acc *accumulator) error {
	if typ == "response.completed" {
		for i := range acc.blocks {
			if acc.blocks[i].open {
				if err := acc.stopBlock(i); err != nil {
					return protoErr(nil, "%s", err)
				}
			}
		}
	}
	if r.Usage != nil {
		acc.setUsage(r.Usage.usage())
	}
	acc.stop = StopEndTurn
	switch {
	case typ == "response.incomplete":
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		switch reason {
		case "max_output_tokens", "":
			acc.stop = StopMaxTokens
		case "content_filter":
			acc.stop = StopRefusal
		default:
			acc.stop = StopReason(reason)
		}
	case acc.hasToolUse():
		acc.stop = StopToolUse
	case d.refused:
		acc.stop = StopRefusal
	}
	acc.finish()
	return nil
}

// eof: a stream without its terminal event was cut.
func (d *responsesDecoder) eof(*accumulator) error { return newCutError("", nil) }
