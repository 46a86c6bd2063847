package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Script is what the server answers: the Nth request gets Turns[N-1].
type Script struct {
	Turns []Turn `json:"turns"`
	// ContextWindow, when set, makes the server count each request's
	// tokens as its body's bytes / 4 and reject one over the window with
	// the provider's real context-length error (Anthropic: 400
	// invalid_request_error "prompt is too long: N tokens > M maximum";
	// OpenAI: 400 context_length_exceeded) without taking a turn. A turn
	// that reports no input tokens then reports that count.
	ContextWindow int `json:"context_window,omitempty"`
	// Summary, when set, answers every request that offers no tools (an
	// agent's compaction request) without taking a turn of Turns.
	Summary *Turn `json:"summary,omitempty"`
	// Answers, when set, answer the requests that offer no tools (an
	// agent's sub-queries) without taking a turn of Turns: the first
	// answer whose Contains occurs in the request body (an empty Contains
	// matches every request). A request none matches falls through to
	// Summary and Turns.
	Answers []Answer `json:"answers,omitempty"`
}

// Answer is a turn given to the tool-less requests whose body holds
// Contains.
type Answer struct {
	Contains string `json:"contains"`
	Turn
}

// RequestTokens is the token count the server gives a request body when
// [Script.ContextWindow] is set: its bytes / 4, rounded up.
func RequestTokens(body []byte) int { return (len(body) + 3) / 4 }

// Turn is one model answer. Thinking, Text and each tool call's Args are
// streamed one piece per event, in that order.
type Turn struct {
	Thinking  []string   `json:"thinking,omitempty"`
	Text      []string   `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Usage     Usage      `json:"usage,omitzero"`
	// Stop is the stop reason in Anthropic's terms (end_turn, tool_use,
	// max_tokens, stop_sequence, refusal, or anything else passed through);
	// it is mapped to OpenAI's finish_reason. Default: tool_use when the
	// turn has tool calls, else end_turn.
	Stop string `json:"stop,omitempty"`
	// Delay is waited before each content piece (a slow model).
	Delay Duration `json:"delay,omitzero"`
	// Fault, when set, makes the turn fail (see [Fault]).
	Fault *Fault `json:"fault,omitempty"`
}

// ToolCall is one tool call of a turn. Args are the pieces of the argument
// JSON as the client will receive them; they need not form valid JSON, to
// test malformed arguments.
type ToolCall struct {
	ID   string   `json:"id,omitempty"` // default "call_<request>_<index>"
	Name string   `json:"name"`
	Args []string `json:"args,omitempty"`
}

// Usage is the token usage a turn reports. On the OpenAI protocol,
// prompt_tokens is InputTokens + CacheReadTokens + CacheCreationTokens and
// cached_tokens is CacheReadTokens.
type Usage struct {
	InputTokens         int `json:"input_tokens,omitempty"`
	OutputTokens        int `json:"output_tokens,omitempty"`
	CacheCreationTokens int `json:"cache_creation_tokens,omitempty"`
	CacheReadTokens     int `json:"cache_read_tokens,omitempty"`
}

// Fault makes a turn fail. With Status set the server answers with that
// status, Headers and Body (default: the protocol's error JSON built from
// Type and Message) and streams nothing. Otherwise the stream starts, After
// content pieces (thinking, text or argument pieces) are sent, and then the
// fault named by exactly one of Disconnect, Truncate, Malformed or
// ErrorEvent happens. Silent sends nothing at all, not even the response
// headers.
type Fault struct {
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	Type    string            `json:"type,omitempty"`    // error type for the default body and error events
	Message string            `json:"message,omitempty"` // error message for the default body and error events

	After      int  `json:"after,omitempty"`       // content pieces sent before a stream fault
	Disconnect bool `json:"disconnect,omitempty"`  // abort the connection (the client sees a read error)
	Truncate   bool `json:"truncate,omitempty"`    // end the body cleanly without the end marker
	Malformed  bool `json:"malformed,omitempty"`   // send an event whose data is not JSON, then go on
	ErrorEvent bool `json:"error_event,omitempty"` // send the protocol's error event and end
	// Stall sends nothing more, holding the connection open until the
	// client leaves (at most a minute); with Pings, a keep-alive (an
	// Anthropic ping event, an SSE comment for OpenAI) goes out every 50 ms.
	Stall bool `json:"stall,omitempty"`
	Pings bool `json:"pings,omitempty"`
	// Silent takes the request and answers nothing, not even the
	// response headers, until the client leaves (at most a minute).
	Silent bool `json:"silent,omitempty"`
}

// Duration is a time.Duration written in JSON as a Go duration string
// ("250ms").
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string such as "250ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"250ms\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// ParseScript reads a script from JSON and validates it. Unknown fields are
// an error, so a typo does not silently change a test.
func ParseScript(data []byte) (Script, error) {
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("llmtest: parse script: %w", err)
	}
	if dec.More() {
		return Script{}, errors.New("llmtest: parse script: data after the script object")
	}
	if err := s.Validate(); err != nil {
		return Script{}, err
	}
	return s, nil
}

// Validate reports the first mistake in the script: a tool call without a
// name, a fault that names no or several stream faults, a negative count.
func (s Script) Validate() error {
	if s.ContextWindow < 0 {
		return errors.New("llmtest: negative context window")
	}
	for i, t := range s.Turns {
		for j, c := range t.ToolCalls {
			if c.Name == "" {
				return fmt.Errorf("llmtest: turn %d: tool call %d has no name", i+1, j+1)
			}
		}
		if t.Delay < 0 {
			return fmt.Errorf("llmtest: turn %d: negative delay", i+1)
		}
		if f := t.Fault; f != nil {
			n := 0
			for _, b := range []bool{f.Disconnect, f.Truncate, f.Malformed, f.ErrorEvent, f.Stall, f.Silent} {
				if b {
					n++
				}
			}
			switch {
			case f.Status != 0 && (f.Status < 400 || f.Status > 599):
				return fmt.Errorf("llmtest: turn %d: fault status %d is not an error status", i+1, f.Status)
			case f.Status != 0 && n > 0:
				return fmt.Errorf("llmtest: turn %d: a fault is either a status or a stream fault, not both", i+1)
			case f.Status == 0 && n != 1:
				return fmt.Errorf("llmtest: turn %d: fault needs a status or exactly one of disconnect, truncate, malformed, error_event, stall, silent", i+1)
			case f.After < 0:
				return fmt.Errorf("llmtest: turn %d: negative fault after", i+1)
			}
		}
	}
	return nil
}
