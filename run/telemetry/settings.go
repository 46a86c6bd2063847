package telemetry

import (
	"cmp"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SemconvVersion is the version of the OpenTelemetry semantic conventions
// whose GenAI attributes the spans carry (the GenAI conventions are in
// "Development": they may change).
const SemconvVersion = "1.41.0"

// DefaultFlush bounds the flush of the spans at the end of a run.
const DefaultFlush = 2 * time.Second

// HeaderVars are the variables that hold the collector's credentials:
// secrets of the run, never passed to the commands it starts.
func HeaderVars() []string {
	return []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS"}
}

// HeaderSecrets are the values of the header variables that lookup
// finds: each whole value and each header's value, as written and
// percent-decoded (as the SDK sends it).
func HeaderSecrets(lookup func(string) string) []string {
	var out []string
	for _, v := range HeaderVars() {
		val := lookup(v)
		if val == "" {
			continue
		}
		out = append(out, val)
		for _, kv := range strings.Split(val, ",") {
			_, h, ok := strings.Cut(kv, "=")
			if h = strings.TrimSpace(h); !ok || h == "" {
				continue
			}
			forms := []string{h}
			if dec, err := url.PathUnescape(h); err == nil && dec != h {
				forms = append(forms, dec) // as the SDK sends it
			}
			for _, h := range forms {
				out = append(out, h)
				if f := strings.Fields(h); len(f) > 1 {
					out = append(out, f[len(f)-1])
				}
			}
		}
	}
	return out
}

// Config is the [telemetry] section of the configuration, as the caller
// read it (an untrusted workspace file cannot set it).
type Config struct {
	Enabled              *bool         // nil: as the environment says
	Endpoint             string        // the collector's base URL; "": the environment's, else http://localhost:4318
	FlushTimeout         time.Duration // 0: DefaultFlush
	PropagateToProviders bool          // model requests carry the traceparent header
}

// Settings say whether and where a run exports its telemetry.
type Settings struct {
	On bool
	// Warning, when set, is the one line to show on stderr: why telemetry
	// is off although it was asked for (a protocol not built in).
	Warning string
	// TracesURL and MetricsURL are the OTLP/HTTP endpoints.
	TracesURL, MetricsURL string
	Flush                 time.Duration
	// Capture says message content goes into the spans (redacted):
	// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
	Capture bool
	// Propagate says model requests carry the W3C traceparent header.
	Propagate bool
	// Traceparent and Tracestate are the context the run joins
	// (TRACEPARENT, TRACESTATE); "": a new trace.
	Traceparent, Tracestate string
	// lookup is the environment Resolve read, where the exporters find
	// their headers, timeout and compression; nil: the process's.
	lookup func(string) string
}

// Resolve decides the settings from the environment (lookup) and the
// configuration: on when an OTLP endpoint variable is set or c enables
// it, off when OTEL_SDK_DISABLED=true or c disables it.
func Resolve(lookup func(string) string, c Config) Settings {
	s := Settings{Flush: cmp.Or(c.FlushTimeout, DefaultFlush), Propagate: c.PropagateToProviders,
		Traceparent: lookup("TRACEPARENT"), Tracestate: lookup("TRACESTATE"), lookup: lookup}
	base := strings.TrimRight(cmp.Or(lookup("OTEL_EXPORTER_OTLP_ENDPOINT"), c.Endpoint), "/")
	traces, metrics := lookup("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), lookup("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
	envOn := base != "" && lookup("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || traces != "" || metrics != ""
	s.On = envOn
	if c.Enabled != nil {
		s.On = *c.Enabled
	}
	if b, _ := strconv.ParseBool(lookup("OTEL_SDK_DISABLED")); b {
		s.On = false
	}
	if !s.On {
		return s
	}
	base = cmp.Or(base, "http://localhost:4318")
	s.TracesURL = cmp.Or(traces, base+"/v1/traces")
	s.MetricsURL = cmp.Or(metrics, base+"/v1/metrics")
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := lookup(v); p != "" {
			if p != "http/protobuf" {
				return Settings{Warning: "telemetry: " + v + "=" + p + " is not built in (only http/protobuf is); telemetry is off"}
			}
			break
		}
	}
	s.Capture, _ = strconv.ParseBool(lookup("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"))
	return s
}
