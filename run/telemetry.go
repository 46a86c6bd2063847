package run

import (
	"context"
	"fmt"
	"io"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/telemetry"
)

// startTelemetry starts the run's OpenTelemetry export, if the OTEL_*
// variables or [telemetry] ask for it (nil: off), and returns what ends
// it: the flush, bounded, with one warning line on stderr when the
// collector could not be reached.
func startTelemetry(ctx context.Context, cfg execConfig, env environment, stderr io.Writer) (*telemetry.Run, func()) {
	warn := telemetryWarn(stderr)
	s := cfg.settings()
	red := agent.NewRedactor(s.Secrets(env.Env, cfg.Dir))
	tel := harness.StartTelemetry(ctx, cfg.Settings, env.Env, telemetry.Info{
		Version: readBuildInfo().Version, Provider: s.Provider.Type, Model: s.Provider.Model, Redact: red.Redact,
	}, warn)
	return tel, func() {
		if w := tel.Close(); w != "" {
			warn(w)
		}
	}
}

// telemetryWarn shows a telemetry warning on stderr, on one line.
func telemetryWarn(stderr io.Writer) func(string) {
	return func(s string) { fmt.Fprintln(stderr, "rubichan: "+s) }
}
