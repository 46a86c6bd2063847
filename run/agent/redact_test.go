package agent_test

import (
	"slices"
	"testing"

	"github.com/rubichan/rubichan/run/agent"
)

func TestRedactor(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		secrets []string
		in      string
		want    string
	}{
		"7 bytes is a placeholder": {[]string{"abcdefg"}, "key abcdefg", "key abcdefg"},
		"8 bytes is a secret":      {[]string{"abcdefgh"}, "key abcdefgh!", "key [REDACTED]!"},
		"every occurrence":         {[]string{"sk-0123456789"}, "sk-0123456789 and sk-0123456789", "[REDACTED] and [REDACTED]"},
		"longer secret first":      {[]string{"sk-01234567", "Bearer sk-01234567"}, "h: Bearer sk-01234567", "h: [REDACTED]"},
		"duplicates and short":     {[]string{"", "x", "ollama", "secret-1", "secret-1"}, "x ollama secret-1", "x ollama [REDACTED]"},
		"no secrets":               {nil, "text", "text"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := agent.NewRedactor(tc.secrets).Redact(tc.in); got != tc.want {
				t.Errorf("redact(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := (*agent.Redactor)(nil).Redact("abcdefgh"); got != "abcdefgh" {
		t.Errorf("nil redactor changed %q", got)
	}
}

func TestRedactorSecrets(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		secrets []string
		want    []string
	}{
		"longest first":                {[]string{"secret-1", "a-longer-secret"}, []string{"a-longer-secret", "secret-1"}},
		"duplicates and short dropped": {[]string{"", "x", "ollama", "secret-1", "secret-1"}, []string{"secret-1"}},
		"none":                         {nil, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := agent.NewRedactor(tc.secrets).Secrets(); !slices.Equal(got, tc.want) {
				t.Errorf("Secrets() = %q, want %q", got, tc.want)
			}
		})
	}
	if got := (*agent.Redactor)(nil).Secrets(); got != nil {
		t.Errorf("nil redactor's Secrets() = %q, want nil", got)
	}
}
