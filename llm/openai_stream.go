package llm

import (
	"encoding/json"
	"strconv"

	"github.com/tmaxmax/go-sse"
)

// openaiDecoder reads the Chat Completions stream: chunks whose first choice
// carries content, reasoning (reasoning_content or reasoning) and tool-call
// pieces keyed by index; a finish_reason; a usage chunk with empty choices;
// an error object; and data: [DONE].
//
// Blocks are opened in arrival order: a thinking block, a text block and one
// block per tool call; text that resumes after another block opens a new
// text block. Tool calls complete at the finish_reason (or [DONE]).
type openaiDecoder struct {
	text, think int       // block index of the open text / thinking block, or -1
	calls       []oaiCall // tool calls in order of appearance
	finished    bool      // a finish_reason was seen
	refused     bool      // the model sent a refusal
	chunk       oaiChunk
	// thoughts, when not nil, reads Gemini's <thought> tags in content.
	thoughts *thoughtSplitter
}

type oaiCall struct {
	index int // the tool call's index on the wire
	block int // its block index
}

type oaiChunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []oaiChoice     `json:"choices"`
	Usage   *oaiUsage       `json:"usage"`
	XGroq   *oaiXGroq       `json:"x_groq"`
	Error   json.RawMessage `json:"error"`
}

type oaiXGroq struct {
	Usage *oaiUsage `json:"usage"`
}

type oaiChoice struct {
	Index        int      `json:"index"`
	Delta        oaiDelta `json:"delta"`
	FinishReason string   `json:"finish_reason"`
}

type oaiDelta struct {
	Content          oaiContent         `json:"content"`
	ReasoningContent string             `json:"reasoning_content"`
	Reasoning        string             `json:"reasoning"`
	Refusal          string             `json:"refusal"`
	ToolCalls        []oaiToolCallDelta `json:"tool_calls"`
}

type oaiToolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	ExtraContent *oaiExtraContent `json:"extra_content"`
}

// oaiExtraContent is Gemini's addition to a tool call: the thought
// signature to send back with the call.
type oaiExtraContent struct {
	Google struct {
		ThoughtSignature string `json:"thought_signature"`
	} `json:"google"`
}

type oaiUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens    int `json:"prompt_cache_hit_tokens"` // DeepSeek
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// usage converts to the neutral shape, where InputTokens excludes cached
// tokens.
func (u *oaiUsage) usage() Usage {
	cached := u.PromptCacheHitTokens
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
		cached = u.PromptTokensDetails.CachedTokens
	}
	cached = min(cached, u.PromptTokens)
	out := Usage{InputTokens: u.PromptTokens - cached, OutputTokens: u.CompletionTokens, CacheReadTokens: cached}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

func newOpenAIDecoder() *openaiDecoder { return &openaiDecoder{text: -1, think: -1} }

func (d *openaiDecoder) handle(ev sse.Event, acc *accumulator) (bool, error) {
	if ev.Data == "[DONE]" {
		if err := d.finish("", acc); err != nil {
			return true, err
		}
		acc.finish()
		return true, nil
	}
	if ev.Data == "" {
		return false, nil
	}
	c := &d.chunk
	// Reuse the choices' storage; clear it first because json.Unmarshal
	// decodes into existing slice elements without zeroing them.
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = oaiChunk{Choices: choices[:0]}
	if err := json.Unmarshal([]byte(ev.Data), c); err != nil {
		return false, protoErr(err, "decode chunk")
	}
	isErr := len(c.Error) > 0 && string(c.Error) != "null"
	if (isErr || ev.Type == "error") && d.finished && acc.stop == StopMaxTokens {
		// Some servers follow finish_reason "length" with an error chunk
		// saying the same: the answer stopped at max tokens. OpenRouter's
		// carries the stream's only usage: count it.
		d.usage(c, acc)
		acc.finish()
		return true, nil
	}
	if isErr {
		return true, eventError(c.Error)
	}
	if ev.Type == "error" {
		return true, eventError(json.RawMessage(ev.Data))
	}
	if c.ID != "" {
		acc.respID = c.ID
	}
	if c.Model != "" {
		acc.respModel = c.Model
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 || d.finished {
			continue
		}
		if err := d.delta(&ch.Delta, acc); err != nil {
			return false, err
		}
		if ch.FinishReason != "" {
			if err := d.finish(ch.FinishReason, acc); err != nil {
				return false, err
			}
		}
	}
	d.usage(c, acc)
	return false, nil
}

// usage records the usage chunk c carries, if any: its own, or Groq's
// under x_groq.
func (d *openaiDecoder) usage(c *oaiChunk, acc *accumulator) {
	if c.Usage != nil {
		acc.setUsage(c.Usage.usage())
	} else if c.XGroq != nil && c.XGroq.Usage != nil {
		acc.setUsage(c.XGroq.Usage.usage())
	}
}

func (d *openaiDecoder) delta(dl *oaiDelta, acc *accumulator) error {
	reasoning := dl.ReasoningContent
	if reasoning == "" {
		reasoning = dl.Reasoning
	}
	reasoning += dl.Content.Thinking
	content := dl.Content.Text
	if d.thoughts != nil && content != "" {
		var thought string
		thought, content = d.thoughts.split(content)
		reasoning += thought
	}
	if dl.Refusal != "" {
		d.refused = true
		content += dl.Refusal
	}
	if err := d.appendPieces(reasoning, content, acc); err != nil {
		return err
	}
	for i := range dl.ToolCalls {
		if err := d.toolCall(&dl.ToolCalls[i], acc); err != nil {
			return err
		}
	}
	return nil
}

// appendPieces adds reasoning, then content, to the open thinking and
// text blocks, opening them as needed.
func (d *openaiDecoder) appendPieces(reasoning, content string, acc *accumulator) error {
	if reasoning != "" {
		if err := appendOpen(&d.think, &d.text, BlockThinking, reasoning, acc); err != nil {
			return err
		}
	}
	if content != "" {
		if err := appendOpen(&d.text, &d.think, BlockText, content, acc); err != nil {
			return err
		}
	}
	return nil
}

// toolCall adds one tool-call piece. Pieces belong to the latest call with
// the same index, unless they bring a different id: some servers number
// every call 0. A piece without an index (some servers send each call
// whole) continues the last call unless it brings a new id.
func (d *openaiDecoder) toolCall(tc *oaiToolCallDelta, acc *accumulator) error {
	var call *oaiCall
	for i := len(d.calls) - 1; i >= 0; i-- {
		if tc.Index == nil || d.calls[i].index == *tc.Index {
			if id := acc.blocks[d.calls[i].block].id; tc.ID == "" || id == "" || id == tc.ID {
				call = &d.calls[i]
			}
			break
		}
	}
	if call == nil {
		if err := closeBlock(&d.text, acc); err != nil {
			return err
		}
		if err := closeBlock(&d.think, acc); err != nil {
			return err
		}
		index := len(d.calls)
		if tc.Index != nil {
			index = *tc.Index
		}
		d.calls = append(d.calls, oaiCall{index: index, block: len(acc.blocks)})
		call = &d.calls[len(d.calls)-1]
		if err := acc.start(call.block, Block{Kind: BlockToolUse, ID: tc.ID, Name: tc.Function.Name}); err != nil {
			return protoErr(nil, "%s", err)
		}
	} else {
		b := &acc.blocks[call.block]
		if b.id == "" {
			b.id = tc.ID
		}
		if b.name == "" {
			b.name = tc.Function.Name
		}
	}
	if x := tc.ExtraContent; x != nil && x.Google.ThoughtSignature != "" {
		acc.blocks[call.block].signature = x.Google.ThoughtSignature
	}
	if err := acc.appendInput(call.block, tc.Function.Arguments); err != nil {
		return protoErr(nil, "tool call %d: %s", call.index, err)
	}
	return nil
}

// appendOpen adds s to the open block of kind whose index *open holds.
// When none is open it closes the block *other holds (text and thinking
// alternate) and opens a new one.
func appendOpen(open, other *int, kind BlockKind, s string, acc *accumulator) error {
	if *open < 0 {
		if err := closeBlock(other, acc); err != nil {
			return err
		}
		*open = len(acc.blocks)
		if err := acc.start(*open, Block{Kind: kind}); err != nil {
			return protoErr(nil, "%s", err)
		}
	}
	if err := acc.appendText(*open, kind, s); err != nil {
		return protoErr(nil, "%s", err)
	}
	return nil
}

// closeBlock stops the block whose index *open holds, if any, and sets
// *open to -1.
func closeBlock(open *int, acc *accumulator) error {
	if *open < 0 {
		return nil
	}
	i := *open
	*open = -1
	if err := acc.stopBlock(i); err != nil {
		return protoErr(nil, "%s", err)
	}
	return nil
}

// finish closes every open block, completing the tool calls in order, and
// maps the finish reason; reason is "" at a [DONE] without one.
func (d *openaiDecoder) finish(reason string, acc *accumulator) error {
	if d.finished {
		return nil
	}
	if d.thoughts != nil {
		// Whatever was held back as a possible tag is content after all.
		th, tx := d.thoughts.flush()
		if err := d.appendPieces(th, tx, acc); err != nil {
			return err
		}
	}
	d.finished = true
	// Some servers send calls without id; the caller pairs each call with
	// its result by id, so every call gets one.
	for n, c := range d.calls {
		if b := &acc.blocks[c.block]; b.id == "" {
			b.id = "call_" + strconv.Itoa(n)
		}
	}
	for i := range acc.blocks {
		if acc.blocks[i].open {
			if err := acc.stopBlock(i); err != nil {
				return protoErr(nil, "%s", err)
			}
		}
	}
	d.text, d.think = -1, -1
	switch reason {
	case "stop", "":
		acc.stop = StopEndTurn
	case "tool_calls", "function_call":
		acc.stop = StopToolUse
	case "length":
		acc.stop = StopMaxTokens
	case "content_filter":
		acc.stop = StopRefusal
	default:
		acc.stop = StopReason(reason)
	}
	// Some servers (older Ollama, llama.cpp) say "stop" after tool calls.
	if acc.stop == StopEndTurn && len(d.calls) > 0 {
		acc.stop = StopToolUse
	}
	if d.refused && acc.stop == StopEndTurn {
		acc.stop = StopRefusal
	}
	return nil
}

// eof accepts a stream that ended after its finish_reason without [DONE].
func (d *openaiDecoder) eof(acc *accumulator) error {
	if !d.finished {
		return newCutError("", nil)
	}
	acc.finish()
	return nil
}
