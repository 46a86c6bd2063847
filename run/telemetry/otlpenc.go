package telemetry

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The OTLP messages are written by hand (wire.go), field by field as
// opentelemetry-proto defines them (common, resource, trace and metrics
// v1, the collector's Export*ServiceRequest): the generated packages would
// link the proto registry and, through the collector packages, gRPC, whose
// initialisers every start would pay. Each message below mirrors what the
// official exporters' transforms (otlptrace/internal/tracetransform,
// otlpmetric/internal/transform) build; the tests decode it with the
// generated types and compare it with theirs.

// msg appends field num holding the message that enc writes. The message
// is written even when empty: OTLP tells an empty message from none.
func msg(b []byte, num int, enc func([]byte) []byte) []byte {
	b = appendTag(b, num, bytesType)
	return appendLen(b, enc(nil))
}

func str(b []byte, num int, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, num, bytesType)
	return appendLen(b, []byte(validUTF8(s)))
}

// validUTF8 is s with each invalid byte sequence replaced by U+FFFD: a
// proto string must be UTF-8, and a collector rejects the whole export
// otherwise (the official exporters fail to marshal it and drop the batch).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func byts(b []byte, num int, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = appendTag(b, num, bytesType)
	return appendLen(b, v)
}

func varint(b []byte, num int, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, varintType)
	return binary.AppendUvarint(b, v)
}

func fixed64(b []byte, num int, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, fixed64Type)
	return appendFixed64(b, v)
}

func fixed32(b []byte, num int, v uint32) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, fixed32Type)
	return appendFixed32(b, v)
}

// double writes a double that has presence (a oneof or an optional
// field): zero included.
func double(b []byte, num int, v float64) []byte {
	b = appendTag(b, num, fixed64Type)
	return appendFixed64(b, math.Float64bits(v))
}

func clamp32(n int) uint64 { return uint64(min(max(n, 0), math.MaxUint32)) }

func unixNano(t time.Time) uint64 { return uint64(max(0, t.UnixNano())) }

// keyValues writes the KeyValue list kvs as field num.
func keyValues(b []byte, num int, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = msg(b, num, func(b []byte) []byte {
			b = str(b, 1, string(kv.Key))
			return msg(b, 2, func(b []byte) []byte { return anyValue(b, kv.Value) })
		})
	}
	return b
}

// anyValue writes the fields of an AnyValue; each member of its oneof is
// written even when zero.
func anyValue(b []byte, v attribute.Value) []byte {
	oneofStr := func(b []byte, s string) []byte {
		b = appendTag(b, 1, bytesType)
		return appendLen(b, []byte(validUTF8(s)))
	}
	array := func(b []byte, n int, at func(b []byte, i int) []byte) []byte {
		return msg(b, 5, func(b []byte) []byte {
			for i := range n {
				b = msg(b, 1, func(b []byte) []byte { return at(b, i) })
			}
			return b
		})
	}
	switch v.Type() {
	case attribute.BOOL:
		b = appendTag(b, 2, varintType)
		return binary.AppendUvarint(b, encodeBool(v.AsBool()))
	case attribute.INT64:
		b = appendTag(b, 3, varintType)
		return binary.AppendUvarint(b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return double(b, 4, v.AsFloat64())
	case attribute.STRING:
		return oneofStr(b, v.AsString())
	case attribute.BYTESLICE:
		b = appendTag(b, 7, bytesType)
		return appendLen(b, v.AsByteSlice())
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		return array(b, len(s), func(b []byte, i int) []byte { return anyValue(b, attribute.BoolValue(s[i])) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		return array(b, len(s), func(b []byte, i int) []byte { return anyValue(b, attribute.Int64Value(s[i])) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		return array(b, len(s), func(b []byte, i int) []byte { return anyValue(b, attribute.Float64Value(s[i])) })
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		return array(b, len(s), func(b []byte, i int) []byte { return oneofStr(b, s[i]) })
	case attribute.SLICE:
		s := v.AsSlice()
		return array(b, len(s), func(b []byte, i int) []byte { return anyValue(b, s[i]) })
	case attribute.MAP:
		return msg(b, 6, func(b []byte) []byte { return keyValues(b, 1, v.AsMap()) })
	case attribute.EMPTY:
		return b
	}
	return oneofStr(b, "INVALID")
}

// resourceMsg writes a Resource.
func resourceMsg(b []byte, r *resource.Resource) []byte {
	return keyValues(b, 1, r.Attributes())
}

// scopeMsg writes an InstrumentationScope.
func scopeMsg(b []byte, s instrumentation.Scope) []byte {
	b = str(b, 1, s.Name)
	b = str(b, 2, s.Version)
	return keyValues(b, 3, s.Attributes.ToSlice())
}

// encodeSpans is the ExportTraceServiceRequest of spans: grouped by
// resource, then by instrumentation scope, in the order first seen.
func encodeSpans(spans []sdktrace.ReadOnlySpan) []byte {
	type group struct {
		res    *resource.Resource
		scopes []instrumentation.Scope
		spans  map[instrumentation.Scope][]sdktrace.ReadOnlySpan
	}
	var groups []*group
	byRes := map[attribute.Distinct]*group{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		g := byRes[s.Resource().Equivalent()]
		if g == nil {
			g = &group{res: s.Resource(), spans: map[instrumentation.Scope][]sdktrace.ReadOnlySpan{}}
			byRes[s.Resource().Equivalent()] = g
			groups = append(groups, g)
		}
		sc := s.InstrumentationScope()
		if _, ok := g.spans[sc]; !ok {
			g.scopes = append(g.scopes, sc)
		}
		g.spans[sc] = append(g.spans[sc], s)
	}
	var b []byte
	for _, g := range groups {
		b = msg(b, 1, func(b []byte) []byte { // ResourceSpans
			b = msg(b, 1, func(b []byte) []byte { return resourceMsg(b, g.res) })
			for _, sc := range g.scopes {
				b = msg(b, 2, func(b []byte) []byte { // ScopeSpans
					if sc != (instrumentation.Scope{}) {
						b = msg(b, 1, func(b []byte) []byte { return scopeMsg(b, sc) })
					}
					for _, s := range g.spans[sc] {
						b = msg(b, 2, func(b []byte) []byte { return spanMsg(b, s) })
					}
					return str(b, 3, sc.SchemaURL)
				})
			}
			return str(b, 3, g.res.SchemaURL())
		})
	}
	return b
}

// spanFlags are the W3C trace flags and whether the parent is remote.
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	const hasIsRemote, isRemote = 0x100, 0x200
	f := uint32(tf) | hasIsRemote
	if parent.IsRemote() {
		f |= isRemote
	}
	return f
}

// spanMsg writes a Span.
func spanMsg(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = byts(b, 1, tid[:])
	b = byts(b, 2, sid[:])
	b = str(b, 3, sc.TraceState().String())
	if p := s.Parent().SpanID(); p.IsValid() {
		b = byts(b, 4, p[:])
	}
	b = str(b, 5, s.Name())
	b = varint(b, 6, uint64(spanKind(s.SpanKind())))
	b = fixed64(b, 7, unixNano(s.StartTime()))
	b = fixed64(b, 8, unixNano(s.EndTime()))
	b = keyValues(b, 9, s.Attributes())
	b = varint(b, 10, clamp32(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = msg(b, 11, func(b []byte) []byte {
			b = fixed64(b, 1, unixNano(e.Time))
			b = str(b, 2, e.Name)
			b = keyValues(b, 3, e.Attributes)
			return varint(b, 4, clamp32(e.DroppedAttributeCount))
		})
	}
	b = varint(b, 12, clamp32(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = msg(b, 13, func(b []byte) []byte {
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = byts(b, 1, tid[:])
			b = byts(b, 2, sid[:])
			b = keyValues(b, 4, l.Attributes)
			b = varint(b, 5, clamp32(l.DroppedAttributeCount))
			return fixed32(b, 6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = varint(b, 14, clamp32(s.DroppedLinks()))
	b = msg(b, 15, func(b []byte) []byte { // Status
		st := s.Status()
		code := map[codes.Code]uint64{codes.Ok: 1, codes.Error: 2}[st.Code]
		b = str(b, 2, st.Description)
		return varint(b, 3, code)
	})
	return fixed32(b, 16, spanFlags(sc.TraceFlags(), s.Parent()))
}

// spanKind is the OTLP SpanKind: the API's numbering, unspecified beyond.
func spanKind(k trace.SpanKind) trace.SpanKind {
	if k > trace.SpanKindConsumer {
		return trace.SpanKindUnspecified
	}
	return k
}

// encodeMetrics is the ExportMetricsServiceRequest of rm. Gauges, sums
// and explicit-bucket histograms are written (the only aggregations the
// SDK's default views make); another is an error.
func encodeMetrics(rm *metricdata.ResourceMetrics) ([]byte, error) {
	var err error
	b := msg(nil, 1, func(b []byte) []byte { // ResourceMetrics
		b = msg(b, 1, func(b []byte) []byte { return resourceMsg(b, rm.Resource) })
		for _, sm := range rm.ScopeMetrics {
			b = msg(b, 2, func(b []byte) []byte { // ScopeMetrics
				b = msg(b, 1, func(b []byte) []byte { return scopeMsg(b, sm.Scope) })
				for _, m := range sm.Metrics {
					mb, merr := metricMsg(m)
					if merr != nil {
						err = errors.Join(err, merr)
						continue
					}
					b = appendTag(b, 2, bytesType)
					b = appendLen(b, mb)
				}
				return str(b, 3, sm.Scope.SchemaURL)
			})
		}
		return str(b, 3, rm.Resource.SchemaURL())
	})
	return b, err
}

// metricMsg writes a Metric.
func metricMsg(m metricdata.Metrics) ([]byte, error) {
	b := str(nil, 1, m.Name)
	b = str(b, 2, m.Description)
	b = str(b, 3, m.Unit)
	switch a := m.Data.(type) {
	case metricdata.Gauge[int64]:
		return msg(b, 5, func(b []byte) []byte { return numberPoints(b, a.DataPoints) }), nil
	case metricdata.Gauge[float64]:
		return msg(b, 5, func(b []byte) []byte { return numberPoints(b, a.DataPoints) }), nil
	case metricdata.Sum[int64]:
		return sumMsg(b, a.DataPoints, a.Temporality, a.IsMonotonic)
	case metricdata.Sum[float64]:
		return sumMsg(b, a.DataPoints, a.Temporality, a.IsMonotonic)
	case metricdata.Histogram[int64]:
		return histogramMsg(b, a)
	case metricdata.Histogram[float64]:
		return histogramMsg(b, a)
	}
	return nil, fmt.Errorf("telemetry: metric %s: aggregation %T not supported", m.Name, m.Data)
}

// temporality is the OTLP AggregationTemporality of t.
func temporality(t metricdata.Temporality) (uint64, error) {
	switch t {
	case metricdata.DeltaTemporality:
		return 1, nil
	case metricdata.CumulativeTemporality:
		return 2, nil
	}
	return 0, fmt.Errorf("telemetry: unknown temporality %v", t)
}

func sumMsg[N int64 | float64](b []byte, pts []metricdata.DataPoint[N], t metricdata.Temporality, mono bool) ([]byte, error) {
	tv, err := temporality(t)
	if err != nil {
		return nil, err
	}
	return msg(b, 7, func(b []byte) []byte {
		b = numberPoints(b, pts)
		b = varint(b, 2, tv)
		return varint(b, 3, encodeBool(mono))
	}), nil
}

// numberValue writes the value oneof of a NumberDataPoint (as_double is
// field 4) or an Exemplar (as_double is field 3); as_int is field 6
// (sfixed64) in both.
func numberValue[N int64 | float64](b []byte, asDouble int, v N) []byte {
	switch x := any(v).(type) {
	case int64:
		b = appendTag(b, 6, fixed64Type)
		return appendFixed64(b, uint64(x))
	case float64:
		return double(b, asDouble, x)
	}
	return b
}

func numberPoints[N int64 | float64](b []byte, pts []metricdata.DataPoint[N]) []byte {
	for _, p := range pts {
		b = msg(b, 1, func(b []byte) []byte {
			b = fixed64(b, 2, unixNano(p.StartTime))
			b = fixed64(b, 3, unixNano(p.Time))
			b = numberValue(b, 4, p.Value)
			b = exemplars(b, 5, p.Exemplars)
			return keyValues(b, 7, p.Attributes.ToSlice())
		})
	}
	return b
}

func exemplars[N int64 | float64](b []byte, num int, es []metricdata.Exemplar[N]) []byte {
	for _, e := range es {
		b = msg(b, num, func(b []byte) []byte {
			b = fixed64(b, 2, unixNano(e.Time))
			b = numberValue(b, 3, e.Value)
			b = byts(b, 4, e.SpanID)
			b = byts(b, 5, e.TraceID)
			return keyValues(b, 7, e.FilteredAttributes)
		})
	}
	return b
}

func histogramMsg[N int64 | float64](b []byte, h metricdata.Histogram[N]) ([]byte, error) {
	tv, err := temporality(h.Temporality)
	if err != nil {
		return nil, err
	}
	return msg(b, 9, func(b []byte) []byte {
		for _, p := range h.DataPoints {
			b = msg(b, 1, func(b []byte) []byte { return histogramPoint(b, p) })
		}
		return varint(b, 2, tv)
	}), nil
}

// histogramPoint writes a HistogramDataPoint; sum, min and max are
// optional fields, written when known.
func histogramPoint[N int64 | float64](b []byte, p metricdata.HistogramDataPoint[N]) []byte {
	b = fixed64(b, 2, unixNano(p.StartTime))
	b = fixed64(b, 3, unixNano(p.Time))
	b = fixed64(b, 4, p.Count)
	b = double(b, 5, float64(p.Sum))
	if len(p.BucketCounts) > 0 {
		b = appendTag(b, 6, bytesType)
		var packed []byte
		for _, c := range p.BucketCounts {
			packed = appendFixed64(packed, c)
		}
		b = appendLen(b, packed)
	}
	if len(p.Bounds) > 0 {
		b = appendTag(b, 7, bytesType)
		var packed []byte
		for _, f := range p.Bounds {
			packed = appendFixed64(packed, math.Float64bits(f))
		}
		b = appendLen(b, packed)
	}
	b = exemplars(b, 8, p.Exemplars)
	b = keyValues(b, 9, p.Attributes.ToSlice())
	if v, ok := p.Min.Value(); ok {
		b = double(b, 11, float64(v))
	}
	if v, ok := p.Max.Value(); ok {
		b = double(b, 12, float64(v))
	}
	return b
}
