package sink

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
)

// TestFanRedacted: the sinks see the model's text redacted, a held
// key start written before the next event (a notice aside), reasoning's
// before the text, kept through a retry (the retried text extends it), and
// dropped at a stream cut (the retried answer departed and comes whole).
func TestFanRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-test-KEY-0123"
	type ev struct {
		kind agent.EventKind
		text string
	}
	tests := map[string]struct{ in, want []ev }{
		"split key": {
			in:   []ev{{agent.EventTextDelta, "a sk-ant-"}, {agent.EventTextDelta, "test-KEY-0123 b"}, {agent.EventMessageDone, "a " + key + " b"}},
			want: []ev{{agent.EventTextDelta, "a "}, {agent.EventTextDelta, "[REDACTED] b"}, {agent.EventMessageDone, "a [REDACTED] b"}},
		},
		"held until the message ends": {
			in:   []ev{{agent.EventTextDelta, "ask"}, {agent.EventMessageDone, "ask"}},
			want: []ev{{agent.EventTextDelta, "a"}, {agent.EventTextDelta, "sk"}, {agent.EventMessageDone, "ask"}},
		},
		"a notice does not flush": {
			in:   []ev{{agent.EventTextDelta, "x sk-ant"}, {agent.EventNotice, "waiting"}, {agent.EventTextDelta, "-test-KEY-0123"}, {agent.EventTurnDone, ""}},
			want: []ev{{agent.EventTextDelta, "x "}, {agent.EventNotice, "waiting"}, {agent.EventTextDelta, "[REDACTED]"}, {agent.EventTurnDone, ""}},
		},
		"reasoning first": {
			in:   []ev{{agent.EventThinkingDelta, "hmm s"}, {agent.EventTextDelta, "ok"}, {agent.EventMessageDone, "ok"}},
			want: []ev{{agent.EventThinkingDelta, "hmm "}, {agent.EventThinkingDelta, "s"}, {agent.EventTextDelta, "ok"}, {agent.EventMessageDone, "ok"}},
		},
		"a retry does not flush: the retried text continues the held start": {
			in:   []ev{{agent.EventTextDelta, "x sk-ant"}, {agent.EventRetry, ""}, {agent.EventTextDelta, "-test-KEY-0123"}, {agent.EventTurnDone, ""}},
			want: []ev{{agent.EventTextDelta, "x "}, {agent.EventRetry, ""}, {agent.EventTextDelta, "[REDACTED]"}, {agent.EventTurnDone, ""}},
		},
		"a cut drops the held start": {
			in:   []ev{{agent.EventTextDelta, "x sk-ant-test-KEY-01"}, {agent.EventStreamCut, ""}, {agent.EventTextDelta, "x " + key}, {agent.EventMessageDone, "x " + key}},
			want: []ev{{agent.EventTextDelta, "x "}, {agent.EventStreamCut, ""}, {agent.EventTextDelta, "x [REDACTED]"}, {agent.EventMessageDone, "x [REDACTED]"}},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			red := agent.NewRedactor([]string{key})
			s := &Fan{red: red}
			s.textRed.Red, s.thinkRed.Red = red, red
			var got []ev
			for _, e := range tt.in {
				s.redacted(agent.Event{Kind: e.kind, Text: e.text}, func(out agent.Event) { got = append(got, ev{out.Kind, out.Text}) })
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFanGivesTheSinksTheSecrets: the sinks New builds hide the run's
// secrets in what they write themselves (a notice, a tool's result, the
// result's error), not only in the model's text the fan redacts.
func TestFanGivesTheSinksTheSecrets(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-test-KEY-fan-0123"
	call := &agent.ToolCallInfo{ID: "c1", Name: "bash", Summary: "echo " + key}
	evs := []agent.Event{
		{Kind: agent.EventNotice, Text: "note " + key},
		{Kind: agent.EventToolCall, Tool: call},
		{Kind: agent.EventToolResult, Tool: call, Result: &agent.ToolResultInfo{Content: key}},
	}
	for _, stream := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		js := NewJSON(&stdout, stream, "id", nil)
		f := New(&stdout, &stderr, Options{JSON: js, Verbose: true, Redact: agent.NewRedactor([]string{key})})
		js.Init(events.Init{})
		for _, ev := range evs {
			f.Emit(ev)
		}
		js.Finish(errors.New("failed with "+key), 1)
		if out := stdout.String() + stderr.String(); strings.Contains(out, key) || !strings.Contains(stdout.String(), "[REDACTED]") {
			t.Errorf("stream %v: the key shows, or nothing was redacted:\n%s", stream, out)
		}
	}
}
