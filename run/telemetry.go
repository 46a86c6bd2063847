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
	warn := func(s string) { fmt.Fprintln(stderr, "rubichan: "+s) }
	red := newRedactor(cfg.secrets(env))
	tel := harness.StartTelemetry(ctx, cfg.Settings, env.Env, telemetry.Info{
		Version: readBuildInfo().Version, Provider: cfg.Resolved.Type, Model: cfg.Model, Redact: red.Redact,
	}, warn)
	return tel, func() {
		if w := tel.Close(); w != "" {
			warn(w)
		}
	}
}

// aroundOf is tel as the loop's [agent.Around]; nil when it is off.
func aroundOf(tel *telemetry.Run) agent.Around {
	if tel == nil {
		return nil
	}
	return tel
}

// childEnviron is the environment of the commands the run starts outside
// a tool call (the MCP servers): the run's TRACEPARENT in place of the
// one it joined.
func childEnviron(environ []string, tel *telemetry.Run) []string {
	set := tel.Env(context.Background())
	if len(set) == 0 {
		return environ
	}
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		if !hasName(kv, "TRACEPARENT") && !hasName(kv, "TRACESTATE") {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// hasName says kv is NAME=….
func hasName(kv, name string) bool {
	return len(kv) > len(name) && kv[:len(name)] == name && kv[len(name)] == '='
}
