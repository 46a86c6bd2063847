package telemetry_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/telemetry/otlptest"
)

// TestFlushBeforeSummary: Flush ends the run's span with the summary's
// figures and sends it before the closing summary is shown, so the
// summary can count a collector that is down; its warning is the run's
// one (Close adds none), and Flush and Close together stay within about
// the flush bound.
func TestFlushBeforeSummary(t *testing.T) {
	t.Run("collector up", func(t *testing.T) {
		rec := otlptest.New()
		defer rec.Close()
		tel := start(t, rec, map[string]string{}, nil)
		if w := tel.Flush(&agent.Summary{ExitCode: 0, Turns: 2}); w != "" {
			t.Fatalf("warning %q", w)
		}
		// Sent by Flush, before Close.
		if got := rec.Tree("rubichan.exit_code"); got != "invoke_agent rubichan rubichan.exit_code=0\n" {
			t.Errorf("received before Close:\n%s", got)
		}
		if w := tel.Close(); w != "" {
			t.Errorf("Close warned %q", w)
		}
	})
	for name, url := range downCollectors(t) {
		t.Run(name, func(t *testing.T) {
			tel := startDown(t, url)
			begin := time.Now()
			w := tel.Flush(&agent.Summary{ExitCode: 0})
			if !strings.HasPrefix(w, "telemetry: could not send the run's trace ") || strings.Contains(w, "\n") {
				t.Errorf("Flush's warning %q", w)
			}
			if w := tel.Close(); w != "" {
				t.Errorf("a second warning from Close: %q", w)
			}
			if took := time.Since(begin); took > 2*time.Second {
				t.Errorf("Flush and Close took %s with a bound of 300ms", took)
			}
		})
	}
}
