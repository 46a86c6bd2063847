package llm

import (
	"encoding/json"
	"strings"

	"github.com/tmaxmax/go-sse"
)

// anthropicDecoder reads the Messages API's stream: message_start,
// content_block_start/delta/stop, message_delta, message_stop, ping and
// error. Unknown event, block and delta types are ignored, as the API's
// versioning policy asks, and so is every delta addressed to an unknown
// block. Blocks of server tools (tools the API runs itself) become
// [BlockServerToolUse] and [BlockServerToolResult] blocks, out of the tool
// loop (see anthropic_server.go).
type anthropicDecoder struct {
	ev antEvent
}

// antEvent is the union of all event payloads. Fields are values, not
// pointers, to save allocations; Index is preset to -1 to tell "absent".
type antEvent struct {
	Type         string          `json:"type"`
	Index        int             `json:"index"`
	Message      antStartMsg     `json:"message"`
	ContentBlock antStartBlock   `json:"content_block"`
	Delta        antDelta        `json:"delta"`
	Usage        *antUsage       `json:"usage"`
	Error        json.RawMessage `json:"error"`
}

type antStartMsg struct {
	ID    string   `json:"id"`
	Model string   `json:"model"`
	Usage antUsage `json:"usage"`
}

type antStartBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	// Server tool results.
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	FileID    string          `json:"file_id"`
}

type antDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

type antUsage struct {
	InputTokens         *int `json:"input_tokens"`
	OutputTokens        *int `json:"output_tokens"`
	CacheCreationTokens *int `json:"cache_creation_input_tokens"`
	CacheReadTokens     *int `json:"cache_read_input_tokens"`
}

// merge overwrites the fields of u that the provider sent.
func (w *antUsage) merge(u Usage) Usage {
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	set(&u.InputTokens, w.InputTokens)
	set(&u.OutputTokens, w.OutputTokens)
	set(&u.CacheCreationTokens, w.CacheCreationTokens)
	set(&u.CacheReadTokens, w.CacheReadTokens)
	return u
}

func (d *anthropicDecoder) handle(ev sse.Event, acc *accumulator) (bool, error) {
	typ := ev.Type
	if typ == "ping" {
		return false, nil
	}
	e := &d.ev
	*e = antEvent{Index: -1}
	if err := json.Unmarshal([]byte(ev.Data), e); err != nil {
		return false, protoErr(err, "decode %q event", typ)
	}
	if typ == "" {
		typ = e.Type
	}
	switch typ {
	case "message_start":
		acc.respID, acc.respModel = e.Message.ID, e.Message.Model
		acc.setUsage(e.Message.Usage.merge(acc.usage))
	case "content_block_start":
		if e.Index < 0 || e.ContentBlock.Type == "" {
			return false, protoErr(nil, "content_block_start without index or content_block")
		}
		return false, d.start(e.Index, &e.ContentBlock, acc)
	case "content_block_delta":
		if e.Index < 0 || e.Delta.Type == "" {
			return false, protoErr(nil, "content_block_delta without index or delta")
		}
		return false, d.delta(e.Index, &e.Delta, acc)
	case "content_block_stop":
		if e.Index < 0 {
			return false, protoErr(nil, "content_block_stop without index")
		}
		if err := acc.stopBlock(e.Index); err != nil {
			return false, protoErr(nil, "%s", err)
		}
	case "message_delta":
		if e.Delta.StopReason != "" {
			acc.stop = StopReason(e.Delta.StopReason)
		}
		if e.Usage != nil {
			acc.setUsage(e.Usage.merge(acc.usage))
		}
	case "message_stop":
		if i := acc.openBlock(); i >= 0 {
			return true, protoErr(nil, "message_stop with content block %d still open", i)
		}
		if acc.stop == "" {
			acc.stop = StopEndTurn
			if acc.hasToolUse() {
				acc.stop = StopToolUse
			}
		}
		acc.finish()
		return true, nil
	case "error":
		return true, eventError(e.Error)
	}
	return false, nil
}

func (d *anthropicDecoder) start(index int, cb *antStartBlock, acc *accumulator) error {
	var err error
	switch cb.Type {
	case "text":
		err = acc.start(index, Block{Kind: BlockText, Text: cb.Text})
	case "thinking":
		err = acc.start(index, Block{Kind: BlockThinking, Text: cb.Thinking, Signature: cb.Signature})
	case "redacted_thinking":
		err = acc.start(index, Block{Kind: BlockRedactedThinking, Data: cb.Data})
	case "tool_use", "server_tool_use", "mcp_tool_use":
		input := cb.Input
		if string(input) == "{}" {
			input = nil
		}
		kind := BlockToolUse
		if cb.Type != "tool_use" {
			kind = BlockServerToolUse
		}
		err = acc.start(index, Block{Kind: kind, ID: cb.ID, Name: cb.Name, Input: input})
	default:
		if b, ok := serverToolResult(cb); ok {
			err = acc.start(index, b)
		} else {
			err = acc.startUnknown(index)
		}
	}
	if err != nil {
		return protoErr(nil, "%s", err)
	}
	return nil
}

// delta applies one content_block_delta. A delta for a block of a type the
// package does not model, or for a server tool result, is ignored whatever
// its type; a server tool call takes input deltas only.
func (d *anthropicDecoder) delta(index int, dl *antDelta, acc *accumulator) error {
	var err error
	switch kind := acc.kindOf(index); {
	case acc.skipped(index) || kind == BlockServerToolResult ||
		(kind == BlockServerToolUse && dl.Type != "input_json_delta"):
		err = acc.ignoreDelta(index)
	default:
		err = d.typedDelta(index, dl, acc)
	}
	if err != nil {
		return protoErr(nil, "%s", err)
	}
	return nil
}

// typedDelta applies a delta by its type to a block this package models.
func (d *anthropicDecoder) typedDelta(index int, dl *antDelta, acc *accumulator) error {
	var err error
	switch dl.Type {
	case "text_delta":
		err = acc.appendText(index, BlockText, dl.Text)
	case "thinking_delta":
		err = acc.appendText(index, BlockThinking, dl.Thinking)
	case "input_json_delta":
		err = acc.appendInput(index, dl.PartialJSON)
	case "signature_delta":
		err = acc.appendSignature(index, dl.Signature)
	default:
		err = acc.ignoreDelta(index)
	}
	return err
}

func (d *anthropicDecoder) eof(*accumulator) error { return newCutError("", nil) }

// eventError turns the error object of an error event (either protocol)
// into an [*APIError] classified by its type or code.
func eventError(raw json.RawMessage) *APIError {
	var we wireError
	if json.Unmarshal(raw, &we) != nil {
		_ = json.Unmarshal(raw, &we.Message)
	}
	typ := we.kind()
	var status int
	if json.Unmarshal(we.Code, &status) == nil && status >= 400 {
		// OpenRouter puts the HTTP status in code.
		kind, retry := classifyStatus(status, we.Type, we.Message)
		return &APIError{Kind: kind, StatusCode: status, Type: we.Type, Message: we.Message, Retryable: retry}
	}
	kind, retry := classifyStatus(0, typ, we.Message)
	if lt := strings.ToLower(we.Type); kind == KindServer && lt != "" && lt != strings.ToLower(typ) {
		// An unknown code (Groq's tool_use_failed, say) with a known
		// type: the type decides.
		if k, r := classifyType(lt); k != KindServer {
			kind, retry = k, r
		}
	}
	if we.Message == "" {
		we.Message = "error event in stream"
	}
	return &APIError{Kind: kind, Type: typ, Message: we.Message, Retryable: retry}
}
