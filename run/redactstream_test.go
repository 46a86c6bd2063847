package run

import (
	"slices"
	"strings"
	"testing"
)

// TestStreamRedactorSplits cuts each text in every way into two and three
// pieces: what comes out, flushed at the end, is the text redacted as a
// whole (a piece that showed a part of a secret would differ).
func TestStreamRedactorSplits(t *testing.T) {
	t.Parallel()
	secrets := []string{"sk-ant-test-KEY-0123", "abcdefgh", "abcdefgh1234", "12345678-tail"}
	red := newRedactor(secrets)
	texts := []string{
		"the key sk-ant-test-KEY-0123 is here",
		"sk-ant-test-KEY-0123sk-ant-test-KEY-0123",
		"x abcdefgh1234 y abcdefgh z abcdefgh",
		"ends like a key sk-ant",
		"overlap abcdefgh12345678-tail!",
		"plain text with no secret at all",
	}
	for _, text := range texts {
		want := red.Redact(text)
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j++ {
				s := streamRedactor{red: red}
				var got strings.Builder
				for _, p := range []string{text[:i], text[i:j], text[j:]} {
					out := s.push(p)
					got.WriteString(out)
				}
				got.WriteString(s.flush())
				if got.String() != want {
					t.Errorf("%q cut at %d, %d: got %q, want %q", text, i, j, got.String(), want)
				}
			}
		}
	}
}

// TestStreamRedactorHoldsOnlyAKeyStart: text passes at once but for an
// end that begins a secret, which waits for the next piece.
func TestStreamRedactorHoldsOnlyAKeyStart(t *testing.T) {
	t.Parallel()
	tests := []struct{ push, want, held string }{
		{"hello world\n", "hello world\n", ""},
		{"a key: sk-", "a key: ", "sk-"},
		{"a desk.", "a desk.", ""},
		{"a task", "a ta", "sk"},
		{"mask s", "mask ", "s"},
		{"sk-ant-test-KEY-0123 done", "[REDACTED] done", ""},
	}
	for _, tt := range tests {
		s := streamRedactor{red: newRedactor([]string{"sk-ant-test-KEY-0123"})}
		if got := s.push(tt.push); got != tt.want || s.held != tt.held {
			t.Errorf("push(%q) = %q holding %q, want %q holding %q", tt.push, got, s.held, tt.want, tt.held)
		}
	}
	var none streamRedactor
	if got := none.push("sk-"); got != "sk-" {
		t.Errorf("without secrets push(%q) = %q, want it unchanged", "sk-", got)
	}
}

// BenchmarkStreamRedactor is the cost of one ordinary delta with three
// secrets of a run's length to look for.
func BenchmarkStreamRedactor(b *testing.B) {
	s := streamRedactor{red: newRedactor([]string{"sk-ant-api03-" + strings.Repeat("x", 95), "sk-proj-" + strings.Repeat("y", 40), "Bearer gw-0123456789abcdef"})}
	delta := "The failing test expects the parser to keep the new line; "
	b.ReportAllocs()
	for b.Loop() {
		s.push(delta)
	}
}

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
			s.textRed.red, s.thinkRed.red = red, red
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
