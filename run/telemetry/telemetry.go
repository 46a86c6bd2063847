package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Info is what the run span says of the run from its start.
type Info struct {
	Version  string              // rubichan's version
	Provider string              // gen_ai.provider.name: anthropic, openai, …
	Model    string              // the model asked
	Redact   func(string) string // hides the run's secrets; nil: none
}

// Run is one run's telemetry: its tracer, its open spans and its
// instruments. A nil *Run is telemetry off: every method does nothing.
// It is safe for concurrent use (sub-queries report from their own
// goroutines).
type Run struct {
	s       Settings
	info    Info
	tp      *sdktrace.TracerProvider
	mp      *sdkmetric.MeterProvider
	tracer  trace.Tracer
	inst    instruments
	exp     *countingExporter
	root    trace.Span
	rootCtx context.Context
	prop    propagation.TraceContext

	mu    sync.Mutex
	chat  *chatSpan             // the model request under way
	tools map[string]trace.Span // the tool calls under way, by call id
	ended bool
	end   flushState // what Flush leaves for Close (flush.go)
}

// Start begins the run's trace: a child of s.Traceparent when it is a
// valid context, else a new trace. It returns nil when s is off.
func Start(ctx context.Context, s Settings, info Info) (*Run, error) {
	if !s.On {
		return nil, nil
	}
	if info.Redact == nil {
		info.Redact = func(s string) string { return s }
	}
	for signal, raw := range map[string]string{"traces": s.TracesURL, "metrics": s.MetricsURL} {
		if !httpURL(raw) {
			// Not repeated: it may carry credentials.
			return nil, fmt.Errorf("telemetry: the %s endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_%s_ENDPOINT or [telemetry] endpoint) is not an http or https URL", signal, strings.ToUpper(signal))
		}
	}
	lookup := s.lookup
	if lookup == nil {
		lookup = os.Getenv
	}
	tc, err := newClient(lookup, "TRACES", s.TracesURL)
	if err != nil {
		return nil, err
	}
	mc, err := newClient(lookup, "METRICS", s.MetricsURL)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "rubichan"), attribute.String("service.version", info.Version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	r := &Run{s: s, info: info, exp: &countingExporter{SpanExporter: spanExporter{tc}}, tools: map[string]trace.Span{}}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(r.exp), sdktrace.WithResource(res))
	r.tracer = r.tp.Tracer("github.com/rubichan/rubichan/run/telemetry")
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(countingMetrics{metricExporter{mc}, &r.exp.failures})), sdkmetric.WithResource(res))
	r.inst = newInstruments(r.mp.Meter("github.com/rubichan/rubichan/run/telemetry"))
	parent := r.prop.Extract(ctx, propagation.MapCarrier{"traceparent": s.Traceparent, "tracestate": s.Tracestate})
	r.rootCtx, r.root = r.tracer.Start(parent, "invoke_agent rubichan", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "rubichan"),
		attribute.String("gen_ai.agent.version", info.Version),
		attribute.String("gen_ai.provider.name", info.Provider),
		attribute.String("gen_ai.request.model", info.Model),
	))
	return r, nil
}

// TraceID is the run's trace id in hex; "" when off.
func (r *Run) TraceID() string {
	if r == nil {
		return ""
	}
	return r.root.SpanContext().TraceID().String()
}

// Context returns ctx carrying the run's span, for work that starts
// outside the engine's operations (MCP servers, sub-queries).
func (r *Run) Context(ctx context.Context) context.Context {
	if r == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, r.root)
}

// Env returns the TRACEPARENT (and TRACESTATE) a command started under
// ctx gets: the span ctx carries, else the run's; nil when off.
func (r *Run) Env(ctx context.Context) []string {
	if r == nil {
		return nil
	}
	c := propagation.MapCarrier{}
	r.prop.Inject(r.parent(ctx), c)
	env := []string{"TRACEPARENT=" + c["traceparent"]}
	if ts := c["tracestate"]; ts != "" {
		env = append(env, "TRACESTATE="+ts)
	}
	return env
}

// Inject adds the W3C traceparent header of ctx's span to h when the
// settings propagate to providers.
func (r *Run) Inject(ctx context.Context, set func(key, value string)) {
	if r == nil || !r.s.Propagate {
		return
	}
	c := propagation.MapCarrier{}
	r.prop.Inject(r.parent(ctx), c)
	for k, v := range c {
		set(k, v)
	}
}

// parent is ctx when it carries a span, else ctx with the run's span.
func (r *Run) parent(ctx context.Context) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	return trace.ContextWithSpan(ctx, r.root)
}

// Close ends what is still open, then flushes and stops the exporters
// within the flush bound (the one [Run.Flush] started, if it ran). It
// returns the one-line warning to show when
// spans could not be sent ("" when all went). A collector that is down
// or silent costs at most the bound.
func (r *Run) Close() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	if !r.ended {
		r.ended = true
		r.root.End()
	}
	r.mu.Unlock()
	ctx, cancel := r.flushContext()
	defer cancel()
	terr := r.tp.Shutdown(ctx)
	merr := r.mp.Shutdown(ctx)
	return r.warning(terr, merr)
}

// httpURL reports whether raw is an http(s) URL with a host, one the
// exporter can post to.
func httpURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// shownURL is an endpoint as a message may show it: without the
// credentials a URL can carry (user:password@, a token as the user, a
// query such as ?api_key=).
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the collector"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
	return u.String()
}

// countingExporter counts the exports that failed and keeps the first
// error, for the one warning: the SDK is told they went, else it would
// log each failure on stderr itself.
type countingExporter struct {
	sdktrace.SpanExporter
	failures
}

func (e *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.add(e.SpanExporter.ExportSpans(ctx, spans))
	return nil
}

// countingMetrics is [countingExporter] for the metrics.
type countingMetrics struct {
	sdkmetric.Exporter
	*failures
}

func (e countingMetrics) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	e.add(e.Exporter.Export(ctx, rm))
	return nil
}

// failures counts failed exports and keeps the first error.
type failures struct {
	failed atomic.Int64
	mu     sync.Mutex
	first  error
}

func (e *failures) add(err error) {
	if err == nil {
		return
	}
	e.failed.Add(1)
	e.mu.Lock()
	if e.first == nil {
		e.first = err
	}
	e.mu.Unlock()
}

func (e *failures) err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.first
}

// since is the time from start to now in seconds.
func since(start time.Time) float64 { return time.Since(start).Seconds() }

// Client returns hc with the W3C traceparent header of each request's
// span added, when the settings propagate to providers
// ([telemetry] propagate_to_providers); hc itself otherwise. A nil hc
// stands for a client without timeout on the default transport, as the
// llm clients' default is.
func (r *Run) Client(hc *http.Client) *http.Client {
	if r == nil || !r.s.Propagate {
		return hc
	}
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = traceTransport{base: base, r: r}
	return c
}

// traceTransport adds the traceparent header of the request's span.
type traceTransport struct {
	base http.RoundTripper
	r    *Run
}

func (t traceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	t.r.Inject(req.Context(), req.Header.Set)
	return t.base.RoundTrip(req)
}
