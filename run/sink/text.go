package sink

import (
	"io"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
)

// Text renders the model's text on stdout. In streaming mode every delta
// is written as it arrives, with no buffering of its own; a newline closes
// each message that does not end with one. In final mode only the last
// assistant message is written, at the end of the run. Nothing else ever
// reaches its writer.
//
// A Text is not safe for concurrent use; the runner calls it from one
// goroutine.
type Text struct {
	w     io.Writer
	final bool
	// structured: stdout holds the --json-schema answer alone, on one
	// line, at the end of the run; the model's prose is not written.
	structured bool
	// terminal: w is a terminal, so control characters in the model's
	// text are shown (see [agent.Shown]) rather than sent; a pipe or a file
	// gets the text byte for byte.
	terminal bool

	open    bool // the current message has written text
	lastNL  bool // the last byte written ended a line
	lastMsg string
	err     error // the first write error; later writes are skipped
	// onError, when set, learns the first write error as a
	// [exit.StdoutError], so the run can stop: nobody sees its answer.
	onError func(error)
}

// TextOptions are how a [Text] renders.
type TextOptions struct {
	// Final writes the last assistant message alone, at the end of the
	// run (--output final); otherwise every delta is written at once.
	Final bool
	// Structured writes the run's structured output (--json-schema)
	// alone, on one line, at the end of the run, and nothing else: not
	// the model's text, in either mode; nothing when the run has none.
	Structured bool
	// Terminal: the writer is a terminal, so control characters in the
	// model's text are shown rather than sent.
	Terminal bool
	// OnError, when set, learns the first write error as an
	// [exit.StdoutError], so the run can stop.
	OnError func(error)
}

// NewText returns a Text writing to w (nil: nowhere).
func NewText(w io.Writer, o TextOptions) *Text {
	if w == nil {
		w = io.Discard
	}
	return &Text{w: w, final: o.Final, structured: o.Structured, terminal: o.Terminal, onError: o.OnError, lastNL: true}
}

// SetStructured switches the structured mode of [TextOptions.Structured]
// between runs (line mode's /schema).
func (s *Text) SetStructured(on bool) { s.structured = on }

// Err is the first error writing the text, nil when none.
func (s *Text) Err() error { return s.err }

func (s *Text) write(text string) {
	if s.err != nil || text == "" {
		return
	}
	out := text
	if s.terminal {
		out = agent.Shown(text)
	}
	if _, err := io.WriteString(s.w, out); err != nil {
		s.err = exit.StdoutError{Err: err}
		if s.onError != nil {
			s.onError(s.err)
		}
		return
	}
	s.lastNL = strings.HasSuffix(text, "\n")
}

// closeLine ends the current message's text with a newline if it needs one.
func (s *Text) closeLine() {
	if s.open && !s.lastNL {
		s.write("\n")
	}
	s.open = false
}

// Handle renders ev.
func (s *Text) Handle(ev agent.Event) {
	if s.structured {
		if ev.Kind == agent.EventTurnDone && ev.Summary != nil && len(ev.Summary.StructuredOutput) > 0 {
			s.write(string(ev.Summary.StructuredOutput) + "\n")
		}
		return
	}
	switch ev.Kind {
	case agent.EventTextDelta:
		if !s.final && ev.Text != "" {
			s.write(ev.Text)
			s.open = true
		}
	case agent.EventMessageDone:
		if s.final {
			s.lastMsg = ev.Text
			return
		}
		s.closeLine()
	case agent.EventStreamCut, agent.EventError, agent.EventLimit:
		// A run that stops mid-line ends the answer's line first: on a
		// terminal the notice on stderr then stands on a line of its
		// own. It is the newline the end of the run would write.
		if !s.final {
			s.closeLine()
		}
	case agent.EventTurnDone:
		if s.final {
			s.write(s.lastMsg)
			s.open = s.lastMsg != ""
		}
		s.closeLine()
	}
}
