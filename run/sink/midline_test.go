package sink

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

// TestNoticeAfterMidLineText: on a terminal stdout and stderr are one
// screen; when the run stops while the answer is mid-line, the answer's
// line is ended before the error or limit, which then stands on its own
// line (`Let me think about t^Crubichan: interrupted` was the bug). The
// answer's bytes are what they were: the newline the end of the run
// would have written, written sooner.
func TestNoticeAfterMidLineText(t *testing.T) {
	t.Parallel()
	for name, ev := range map[string]agent.Event{
		"error": {Kind: agent.EventError, Err: errors.New("interrupted by SIGINT")},
		"limit": {Kind: agent.EventLimit, Text: "reached --timeout 1s"},
	} {
		var screen bytes.Buffer
		f := New(&screen, &screen, Options{})
		f.Emit(agent.Event{Kind: agent.EventTextDelta, Text: "Let me think about t"})
		f.Emit(ev)
		f.Emit(agent.Event{Kind: agent.EventTurnDone, Summary: &agent.Summary{}})
		want := "Let me think about t\nrubichan: "
		if got := screen.String(); len(got) < len(want) || got[:len(want)] != want {
			t.Errorf("%s: screen %q, want it to start %q", name, got, want)
		}
		if n := bytes.Count(screen.Bytes(), []byte("about t\n")); n != 1 {
			t.Errorf("%s: the answer's line ended %d times", name, n)
		}
	}
}
