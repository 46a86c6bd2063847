package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// officialBody is the body the official OTLP/HTTP exporter posts for one
// export (export posts to the URL it is given).
func officialBody(t *testing.T, export func(url string) error) []byte {
	t.Helper()
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	if err := export(srv.URL + "/v1/x"); err != nil {
		t.Fatal(err)
	}
	return got
}

// noUnknown fails when m (or a message in it) has a field its schema
// does not know: a field of ours written with a wrong number or type.
func noUnknown(t *testing.T, m protoreflect.Message, path string) {
	t.Helper()
	if u := m.GetUnknown(); len(u) > 0 {
		t.Errorf("%s (%s): unknown fields %x", path, m.Descriptor().FullName(), u)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i := range v.List().Len() {
				noUnknown(t, v.List().Get(i).Message(), path+"."+string(fd.Name()))
			}
		default:
			noUnknown(t, v.Message(), path+"."+string(fd.Name()))
		}
		return true
	})
}

// testSpans are spans with every kind of attribute value, events, a
// link, an error status, a remote parent and a trace state.
func testSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	rec := tracetest.NewSpanRecorder()
	res := resource.NewSchemaless(attribute.String("service.name", "rubichan"), attribute.Int("n", 3))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res))
	tr := tp.Tracer("scope", trace.WithInstrumentationVersion("1.2"), trace.WithInstrumentationAttributes(attribute.Bool("b", true)))
	ts, _ := trace.ParseTraceState("k=v,x=y")
	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2}, SpanID: trace.SpanID{3}, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote)
	ctx, root := tr.Start(ctx, "invoke_agent rubichan", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("s", "é"), attribute.String("empty", ""), attribute.Bool("f", false), attribute.Int64("i", -7), attribute.Int64("zero", 0),
		attribute.Float64("d", 0.25), attribute.Float64("dz", 0), attribute.StringSlice("ss", []string{"a", ""}), attribute.BoolSlice("bs", []bool{true, false}),
		attribute.Int64Slice("is", []int64{1, -1}), attribute.Float64Slice("fs", []float64{1.5, 0}),
	))
	root.AddEvent("retry", trace.WithAttributes(attribute.Int("attempt", 2)), trace.WithTimestamp(time.Unix(5, 6)))
	_, child := tr.Start(ctx, "chat m", trace.WithSpanKind(trace.SpanKindClient), trace.WithLinks(trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.String("l", "v")}}))
	child.SetStatus(codes.Error, "it broke")
	child.End()
	root.SetStatus(codes.Ok, "")
	root.End()
	_, srv := tp.Tracer("other").Start(context.Background(), "server", trace.WithSpanKind(trace.SpanKindServer))
	srv.End()
	return rec.Ended()
}

// TestEncodeSpansAsOfficial: our ExportTraceServiceRequest decodes with
// the generated types to exactly what the official exporter sends, and
// with no field the schema does not know.
func TestEncodeSpansAsOfficial(t *testing.T) {
	spans := testSpans(t)
	want := officialBody(t, func(url string) error {
		e, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(url))
		if err != nil {
			return err
		}
		return e.ExportSpans(context.Background(), spans)
	})
	var w, g colltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(encodeSpans(spans), &g); err != nil {
		t.Fatalf("ours does not decode: %v", err)
	}
	noUnknown(t, g.ProtoReflect(), "request")
	// The official exporter groups through maps: put its scopes in our order.
	if len(w.ResourceSpans) == 1 && len(w.ResourceSpans[0].ScopeSpans) == 2 && w.ResourceSpans[0].ScopeSpans[0].Scope.GetName() != "scope" {
		ss := w.ResourceSpans[0].ScopeSpans
		ss[0], ss[1] = ss[1], ss[0]
	}
	if !proto.Equal(&w, &g) {
		t.Errorf("ours differs from the official exporter's:\nours:     %v\nofficial: %v", &g, &w)
	}
}

// testMetrics are a collection with every aggregation the default views
// make, int and float, with exemplars from a sampled span.
func testMetrics(t *testing.T) *metricdata.ResourceMetrics {
	rd := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(rd), sdkmetric.WithExemplarFilter(exemplar.AlwaysOnFilter),
		sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", "rubichan"))))
	m := mp.Meter("meter", metric.WithInstrumentationVersion("9"))
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	attrs := metric.WithAttributes(attribute.String("gen_ai.token.type", "input"))
	ih, _ := m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"), metric.WithDescription("tokens"))
	ih.Record(ctx, 120, attrs)
	ih.Record(ctx, 0, attrs)
	fh, _ := m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"))
	fh.Record(ctx, 0.5)
	ic, _ := m.Int64Counter("ic")
	ic.Add(ctx, 4, attrs)
	fc, _ := m.Float64UpDownCounter("fc")
	fc.Add(ctx, -1.5)
	ig, _ := m.Int64Gauge("ig")
	ig.Record(ctx, -3)
	fg, _ := m.Float64Gauge("fg")
	fg.Record(ctx, 0)
	var rm metricdata.ResourceMetrics
	if err := rd.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return &rm
}

// TestEncodeMetricsAsOfficial is TestEncodeSpansAsOfficial for metrics.
func TestEncodeMetricsAsOfficial(t *testing.T) {
	rm := testMetrics(t)
	want := officialBody(t, func(url string) error {
		e, err := otlpmetrichttp.New(context.Background(), otlpmetrichttp.WithEndpointURL(url))
		if err != nil {
			return err
		}
		return e.Export(context.Background(), rm)
	})
	body, err := encodeMetrics(rm)
	if err != nil {
		t.Fatal(err)
	}
	var w, g collmetrics.ExportMetricsServiceRequest
	if err := proto.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(body, &g); err != nil {
		t.Fatalf("ours does not decode: %v", err)
	}
	noUnknown(t, g.ProtoReflect(), "request")
	if n := len(g.GetResourceMetrics()[0].GetScopeMetrics()[0].GetMetrics()); n != 6 {
		t.Fatalf("%d metrics, want 6", n)
	}
	if !proto.Equal(&w, &g) {
		t.Errorf("ours differs from the official exporter's:\nours:     %v\nofficial: %v", &g, &w)
	}
}

// FuzzEncodeSpan: whatever the name, attribute key and values, the span
// decodes with the generated types to the same name, key and values —
// strings with their invalid UTF-8 replaced by U+FFFD.
func FuzzEncodeSpan(f *testing.F) {
	f.Add("chat m", "gen_ai.request.model", "claude", int64(-1), 0.5, true)
	f.Add("", "", "", int64(0), 0.0, false)
	f.Fuzz(func(t *testing.T, name, key, s string, i int64, d float64, b bool) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		_, sp := tp.Tracer("t").Start(context.Background(), name, trace.WithAttributes(
			attribute.String(key+"s", s), attribute.Int64(key+"i", i), attribute.Float64(key+"d", d), attribute.Bool(key+"b", b)))
		sp.End()
		var g colltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(encodeSpans(rec.Ended()), &g); err != nil {
			t.Fatal(err)
		}
		span := g.GetResourceSpans()[0].GetScopeSpans()[0].GetSpans()[0]
		utf := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
		if span.GetName() != utf(rec.Ended()[0].Name()) {
			t.Errorf("name %q, want %q", span.GetName(), rec.Ended()[0].Name())
		}
		for _, kv := range span.GetAttributes() {
			want := attributeOf(rec.Ended()[0].Attributes(), kv.GetKey())
			if kv.GetKey() != utf(kv.GetKey()) {
				t.Errorf("key %q is not UTF-8", kv.GetKey())
			}
			av := kv.GetValue()
			var same bool
			switch want.Type() {
			case attribute.STRING:
				same = av.GetStringValue() == utf(want.AsString())
			case attribute.INT64:
				same = av.GetIntValue() == want.AsInt64()
			case attribute.FLOAT64:
				same = av.GetDoubleValue() == want.AsFloat64() || want.AsFloat64() != want.AsFloat64() && av.GetDoubleValue() != av.GetDoubleValue()
			case attribute.BOOL:
				same = av.GetBoolValue() == want.AsBool()
			}
			if !same {
				t.Errorf("attribute %q: %v, want %v", kv.GetKey(), av, want.String())
			}
		}
		if len(span.GetAttributes()) != len(rec.Ended()[0].Attributes()) {
			t.Errorf("%d attributes, want %d", len(span.GetAttributes()), len(rec.Ended()[0].Attributes()))
		}
	})
}

func attributeOf(kvs []attribute.KeyValue, key string) attribute.Value {
	for _, kv := range kvs {
		if strings.ToValidUTF8(string(kv.Key), "\uFFFD") == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}
