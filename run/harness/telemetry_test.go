package harness

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/telemetry"
	"github.com/rubichan/rubichan/run/telemetry/otlptest"
)

// TestWithTrace: with telemetry on, the commands started outside a tool
// call (MCP servers) get the run's TRACEPARENT instead of the one it
// joined, and hooks and --verify get CallEnv; off, nothing changes.
func TestWithTrace(t *testing.T) {
	rec := otlptest.New()
	defer rec.Close()
	const ci = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	base := ChildEnv{Environ: []string{"PATH=/bin", "TRACEPARENT=" + ci}}
	if got := withTrace(base, nil); !slices.Equal(got.Environ, base.Environ) || got.CallEnv != nil {
		t.Errorf("off: %+v", got)
	}
	s := telemetry.Resolve(func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rec.URL, "TRACEPARENT": ci}[k]
	}, telemetry.Config{})
	tel, err := telemetry.Start(context.Background(), s, telemetry.Info{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	got := withTrace(base, tel)
	var tps []string
	for _, kv := range got.Environ {
		if v, ok := strings.CutPrefix(kv, "TRACEPARENT="); ok {
			tps = append(tps, v)
		}
	}
	if len(tps) != 1 || tps[0] == ci || !strings.HasPrefix(tps[0], "00-4bf92f3577b34da6a3ce929d0e0e4736-") {
		t.Errorf("TRACEPARENT of the MCP servers: %q, want the run's span in the CI's trace", tps)
	}
	if got.CallEnv == nil {
		t.Error("hooks and --verify get no CallEnv")
	}
}
