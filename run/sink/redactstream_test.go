package sink

import (
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

// TestStreamRedactorSplits cuts each text in every way into two and three
// pieces: what comes out, flushed at the end, is the text redacted as a
// whole (a piece that showed a part of a secret would differ).
func TestStreamRedactorSplits(t *testing.T) {
	t.Parallel()
	secrets := []string{"sk-ant-test-KEY-0123", "abcdefgh", "abcdefgh1234", "12345678-tail"}
	red := agent.NewRedactor(secrets)
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
				s := StreamRedactor{Red: red}
				var got strings.Builder
				for _, p := range []string{text[:i], text[i:j], text[j:]} {
					out := s.Push(p)
					got.WriteString(out)
				}
				got.WriteString(s.Flush())
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
		s := StreamRedactor{Red: agent.NewRedactor([]string{"sk-ant-test-KEY-0123"})}
		if got := s.Push(tt.push); got != tt.want || s.held != tt.held {
			t.Errorf("push(%q) = %q holding %q, want %q holding %q", tt.push, got, s.held, tt.want, tt.held)
		}
	}
	var none StreamRedactor
	if got := none.Push("sk-"); got != "sk-" {
		t.Errorf("without secrets push(%q) = %q, want it unchanged", "sk-", got)
	}
}

// BenchmarkStreamRedactor is the cost of one ordinary delta with three
// secrets of a run's length to look for.
func BenchmarkStreamRedactor(b *testing.B) {
	s := StreamRedactor{Red: agent.NewRedactor([]string{"sk-ant-api03-" + strings.Repeat("x", 95), "sk-proj-" + strings.Repeat("y", 40), "Bearer gw-0123456789abcdef"})}
	delta := "The failing test expects the parser to keep the new line; "
	b.ReportAllocs()
	for b.Loop() {
		s.Push(delta)
	}
}
