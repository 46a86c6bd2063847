package run

import (
	"io"
	"strings"
)

// textSink renders the model's text on stdout. In streaming mode every delta
// is written as it arrives, with no buffering of its own; a newline closes
// each message that does not end with one. In final mode only the last
// assistant message is written, at the end of the run. Nothing else ever
// reaches its writer.
//
// A textSink is not safe for concurrent use; the runner calls it from one
// goroutine.
type textSink struct {
	w     io.Writer
	final bool
	// terminal: w is a terminal, so control characters in the model's
	// text are shown (see [shown]) rather than sent; a pipe or a file
	// gets the text byte for byte.
	terminal bool

	open    bool // the current message has written text
	lastNL  bool // the last byte written ended a line
	lastMsg string
	err     error // the first write error; later writes are skipped
	// onError, when set, learns the first write error as a
	// [stdoutError], so the run can stop: nobody sees its answer.
	onError func(error)
}

func newTextSink(w io.Writer, final bool) *textSink {
	if w == nil {
		w = io.Discard
	}
	return &textSink{w: w, final: final, lastNL: true}
}

func (s *textSink) write(text string) {
	if s.err != nil || text == "" {
		return
	}
	out := text
	if s.terminal {
		out = shown(text)
	}
	if _, err := io.WriteString(s.w, out); err != nil {
		s.err = stdoutError{Err: err}
		if s.onError != nil {
			s.onError(s.err)
		}
		return
	}
	s.lastNL = strings.HasSuffix(text, "\n")
}

// closeLine ends the current message's text with a newline if it needs one.
func (s *textSink) closeLine() {
	if s.open && !s.lastNL {
		s.write("\n")
	}
	s.open = false
}

func (s *textSink) handle(ev Event) {
	switch ev.Kind {
	case EventTextDelta:
		if !s.final && ev.Text != "" {
			s.write(ev.Text)
			s.open = true
		}
	case EventMessageDone:
		if s.final {
			s.lastMsg = ev.Text
			return
		}
		s.closeLine()
	case EventStreamCut:
		if !s.final {
			s.closeLine()
		}
	case EventTurnDone:
		if s.final {
			s.write(s.lastMsg)
			s.open = s.lastMsg != ""
		}
		s.closeLine()
	}
}
