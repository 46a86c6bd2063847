package llm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/tmaxmax/go-sse"
)

// maxEventSize is the largest SSE event the clients accept. Some servers
// send a whole tool call, file content included, in one event; go-sse's
// default of 64 KB is far too small for that.
const maxEventSize = 16 << 20

// decoder turns one protocol's SSE events into accumulator calls.
type decoder interface {
	// handle processes one event and reports whether it was the protocol's
	// end marker, after which nothing more is read.
	handle(ev sse.Event, acc *accumulator) (done bool, err error)
	// eof is called when the body ended cleanly before the end marker. It
	// returns nil when the stream may nonetheless count as complete.
	eof(acc *accumulator) error
}

// Stream is one streamed model answer. Call Next until it returns false,
// reading each event with Current; then Err tells whether the stream
// completed, and Message, Usage and StopReason describe the answer.
//
//	for s.Next() {
//		ev := s.Current()
//		...
//	}
//	if err := s.Err(); err != nil { ... }
//	msg := s.Message()
//
// A stream that ends before the protocol's end marker (message_stop for
// Anthropic; [DONE] or a finish_reason for OpenAI) fails with an
// [*APIError] of kind [KindStreamCut]; an error event inside the stream, or
// malformed data, fails with the matching kind. In both cases
// [APIError.Partial] says whether content events had been delivered. After
// a failure the turn is incomplete: Message holds what arrived, for display
// or logging, but its tool calls must not be run.
//
// A Stream is not safe for concurrent use; to abandon it from elsewhere,
// cancel the context given to Stream. Close releases the connection; it may
// be called more than once and before the end (Next then returns false and
// Err stays nil), and the stream closes itself when it ends.
type Stream struct {
	provider string
	body     io.Closer
	pull     func() (sse.Event, error, bool)
	stop     func()
	dec      decoder
	acc      accumulator
	cur      Event
	err      error
	ended    bool
	closed   bool
	redact   func(string) string
	idle     *idleWatch // nil: not watched
}

func newStream(provider string, body io.ReadCloser, dec decoder, redact func(string) string) *Stream {
	seq := iter.Seq2[sse.Event, error](sse.Read(body, &sse.ReadConfig{MaxEventSize: maxEventSize}))
	pull, stop := iter.Pull2(seq)
	return &Stream{provider: provider, body: body, pull: pull, stop: stop, dec: dec, redact: redact}
}

// Next advances to the next event and reports whether there is one.
func (s *Stream) Next() bool {
	for {
		if ev, ok := s.acc.pop(); ok {
			s.cur = ev
			return true
		}
		if s.ended {
			s.cur = Event{}
			return false
		}
		s.idle.wait()
		ev, err, ok := s.pull()
		// Anthropic's pings keep a connection open; they are not progress.
		s.idle.read(ok && err == nil && ev.Type != "ping")
		switch {
		case !ok:
			s.end(s.dec.eof(&s.acc))
		case errors.Is(err, bufio.ErrTooLong):
			s.end(protoErr(err, "event larger than %d bytes", maxEventSize))
		case err != nil:
			s.end(err)
		default:
			done, err := s.dec.handle(ev, &s.acc)
			if err != nil || done {
				s.end(err)
			}
		}
	}
}

// Current returns the event Next advanced to.
func (s *Stream) Current() Event { return s.cur }

// Err returns the error that ended the stream, or nil when it completed (or
// has not ended yet).
func (s *Stream) Err() error { return s.err }

// Message returns the assistant message assembled from the events so far.
// After a failure it holds what arrived before it, without tool calls that
// were not complete.
func (s *Stream) Message() Message { return s.acc.message() }

// Usage returns the usage reported so far.
func (s *Stream) Usage() Usage { return s.acc.usage }

// StopReason returns why the model stopped, or "" before the provider said.
func (s *Stream) StopReason() StopReason { return s.acc.stop }

// Close releases the stream's connection. Events not yet read are lost.
func (s *Stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.ended = true
	s.stop()
	err := s.body.Close()
	s.idle.close()
	return err
}

// end records how the stream ended and releases the connection.
func (s *Stream) end(err error) {
	s.ended = true
	if err != nil {
		s.err = s.classify(err)
	}
	_ = s.Close()
}

// classify turns a read, decode or accumulator error into the error the
// caller sees.
func (s *Stream) classify(err error) error {
	var e *APIError
	switch stall := s.idle.stalled(); {
	case stall != nil:
		e = stall.apiError(s.provider)
	case s.acc.overflow != nil:
		// The decoders wrap the accumulator's errors as protocol errors.
		e = &APIError{Kind: KindProtocol, Message: s.acc.overflow.Error(), Retryable: false}
	case isContextErr(err):
		return fmt.Errorf("%s: read stream: %w", s.provider, err)
	case errors.As(err, &e):
	default:
		var pe *protocolError
		if errors.As(err, &pe) {
			e = &APIError{Kind: KindProtocol, Message: pe.Error(), Retryable: true, Err: pe.err}
		} else {
			e = newCutError(s.provider, err)
		}
	}
	e.Provider = s.provider
	e.Partial = s.acc.streamed
	if s.redact != nil {
		e.Message = s.redact(e.Message)
	}
	return e
}

// protocolError is a stream that broke its protocol: malformed data, an
// oversized event, a content block out of order.
type protocolError struct {
	msg string
	err error
}

func (e *protocolError) Error() string {
	if e.err != nil {
		return e.msg + ": " + e.err.Error()
	}
	return e.msg
}

func (e *protocolError) Unwrap() error { return e.err }

// protoErr returns a protocolError for msg wrapping err (may be nil).
func protoErr(err error, format string, args ...any) error {
	return &protocolError{msg: fmt.Sprintf(format, args...), err: err}
}
