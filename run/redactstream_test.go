package run

import (
	"slices"
	"testing"
)

// TestRunSinksRedacted: the sinks see the model's text redacted, a held
// key start written before the next event (a notice aside), reasoning's
// before the text, and dropped at a stream cut (the answer comes again).
func TestRunSinksRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-test-KEY-0123"
	type ev struct {
		kind EventKind
		text string
	}
	tests := map[string]struct{ in, want []ev }{
		"split key": {
			in:   []ev{{EventTextDelta, "a sk-ant-"}, {EventTextDelta, "test-KEY-0123 b"}, {EventMessageDone, "a " + key + " b"}},
			want: []ev{{EventTextDelta, "a "}, {EventTextDelta, "[REDACTED] b"}, {EventMessageDone, "a [REDACTED] b"}},
		},
		"held until the message ends": {
			in:   []ev{{EventTextDelta, "ask"}, {EventMessageDone, "ask"}},
			want: []ev{{EventTextDelta, "a"}, {EventTextDelta, "sk"}, {EventMessageDone, "ask"}},
		},
		"a notice does not flush": {
			in:   []ev{{EventTextDelta, "x sk-ant"}, {EventNotice, "waiting"}, {EventTextDelta, "-test-KEY-0123"}, {EventTurnDone, ""}},
			want: []ev{{EventTextDelta, "x "}, {EventNotice, "waiting"}, {EventTextDelta, "[REDACTED]"}, {EventTurnDone, ""}},
		},
		"reasoning first": {
			in:   []ev{{EventThinkingDelta, "hmm s"}, {EventTextDelta, "ok"}, {EventMessageDone, "ok"}},
			want: []ev{{EventThinkingDelta, "hmm "}, {EventThinkingDelta, "s"}, {EventTextDelta, "ok"}, {EventMessageDone, "ok"}},
		},
		"a cut drops the held start": {
			in:   []ev{{EventTextDelta, "x sk-ant-test-KEY-01"}, {EventStreamCut, ""}, {EventTextDelta, "x " + key}, {EventMessageDone, "x " + key}},
			want: []ev{{EventTextDelta, "x "}, {EventStreamCut, ""}, {EventTextDelta, "x [REDACTED]"}, {EventMessageDone, "x [REDACTED]"}},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			red := newRedactor([]string{key})
			s := &runSinks{red: red}
			s.textRed.Red, s.thinkRed.Red = red, red
			var got []ev
			for _, e := range tt.in {
				s.redacted(Event{Kind: e.kind, Text: e.text}, func(out Event) { got = append(got, ev{out.Kind, out.Text}) })
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
