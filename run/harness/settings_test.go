package harness

import (
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/config"
)

// TestSettingsFromConfig checks that the limits and compact_at come from
// the configuration, and are none without one.
func TestSettingsFromConfig(t *testing.T) {
	t.Parallel()
	lim := config.Limits{MaxTurns: 4, Timeout: time.Minute, MaxToolCalls: 2}
	tests := []struct {
		name string
		s    Settings
		lim  config.Limits
		at   float64
	}{
		{"no configuration", Settings{}, config.Limits{}, 0},
		{"configuration", Settings{Config: &config.Loaded{Config: config.Config{Limits: lim, CompactAt: 0.7}}}, lim, 0.7},
	}
	for _, tt := range tests {
		if got := tt.s.Limits(); got != tt.lim {
			t.Errorf("%s: Limits() = %+v, want %+v", tt.name, got, tt.lim)
		}
		if got := tt.s.CompactAt(); got != tt.at {
			t.Errorf("%s: CompactAt() = %v, want %v", tt.name, got, tt.at)
		}
	}
}
