package harness

import (
	"context"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/telemetry"
)

// StartTelemetry starts the run's OpenTelemetry export as the
// environment's OTEL_* variables and lc's [telemetry] say (see
// [telemetry.Resolve]); nil when it is off. A protocol that is not built
// in, or an exporter that cannot be made, is one line to warn and
// telemetry off, never a failed run.
func StartTelemetry(ctx context.Context, lc *config.Loaded, env Env, info telemetry.Info, warn func(string)) *telemetry.Run {
	var c config.Telemetry
	if lc != nil {
		c = lc.Telemetry
	}
	s := telemetry.Resolve(env.Getenv, telemetry.Config{Enabled: c.Enabled, Endpoint: c.Endpoint, FlushTimeout: c.FlushTimeout, PropagateToProviders: c.PropagateToProviders})
	if s.Warning != "" {
		warn(s.Warning)
		return nil
	}
	tel, err := telemetry.Start(ctx, s, info)
	if err != nil {
		warn(err.Error() + "; telemetry is off")
		return nil
	}
	return tel
}

// Getenv is the value of the variable name; "" when unset.
func (e Env) Getenv(name string) string {
	if e.LookupEnv == nil {
		return ""
	}
	v, _ := e.LookupEnv(name)
	return v
}

// aroundOf is tel as the agent's [agent.Around]; nil when it is off.
func aroundOf(tel *telemetry.Run) agent.Around {
	if tel == nil {
		return nil
	}
	return tel
}

// withTrace is ce for a run with telemetry tel: the commands started
// outside a tool call (the MCP servers) get the run's TRACEPARENT in
// place of the one it joined, a hook or --verify its own span's, and an
// HTTP MCP server's requests their span's traceparent header when the
// user opts in.
func withTrace(ce ChildEnv, tel *telemetry.Run) ChildEnv {
	set := tel.Env(context.Background())
	if len(set) == 0 {
		return ce
	}
	out := make([]string, 0, len(ce.Environ)+len(set))
	for _, kv := range ce.Environ {
		if !strings.HasPrefix(kv, "TRACEPARENT=") && !strings.HasPrefix(kv, "TRACESTATE=") {
			out = append(out, kv)
		}
	}
	ce.Environ = append(out, set...)
	ce.CallEnv = tel.Env
	ce.Headers = tel.Inject // a no-op unless [telemetry] propagate_to_providers
	return ce
}
