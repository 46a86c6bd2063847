package harness

import (
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

func TestUnknownModelWindowNotice(t *testing.T) {
	var notes []string
	c := CompactSettings(nil, "no-such-model", false, func(ev agent.Event) { notes = append(notes, ev.Text) })
	if c.Window != 128_000 || len(notes) != 1 || !strings.Contains(notes[0], `[models."no-such-model"] context_window`) {
		t.Errorf("%+v %q", c, notes)
	}
	if c := CompactSettings(nil, "x", true, func(agent.Event) { t.Error("notice with --no-compact") }); c.Window != 0 {
		t.Errorf("--no-compact: %+v", c)
	}
}
