package otlptest

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	collmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, its ids in hex.
type Span struct {
	Name, TraceID, SpanID, ParentID string
	Kind                            string
	Attrs                           map[string]string
	Events                          []string
	Status                          string // "", "error: message"
	Resource                        map[string]string
	Start                           uint64 // unix nanoseconds
}

// Receiver is the test collector.
type Receiver struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []Span
	metrics []string
	bodies  [][]byte
}

// New starts a receiver on 127.0.0.1; Close stops it.
func New() *Receiver {
	r := &Receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies = append(r.bodies, body)
	switch req.URL.Path {
	case "/v1/traces":
		var m colltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.addSpans(&m)
		out, _ := proto.Marshal(&colltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	case "/v1/metrics":
		var m collmetrics.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rm := range m.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, mt := range sm.Metrics {
					r.metrics = append(r.metrics, mt.Name)
				}
			}
		}
		out, _ := proto.Marshal(&collmetrics.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	default:
		http.NotFound(w, req)
	}
}

func (r *Receiver) addSpans(m *colltrace.ExportTraceServiceRequest) {
	for _, rs := range m.ResourceSpans {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{Name: s.Name, TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
					ParentID: hex.EncodeToString(s.ParentSpanId), Kind: strings.TrimPrefix(s.Kind.String(), "SPAN_KIND_"),
					Attrs: attrs(s.Attributes), Resource: res, Start: s.StartTimeUnixNano}
				for _, e := range s.Events {
					sp.Events = append(sp.Events, e.Name)
				}
				if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
					sp.Status = "error: " + s.Status.Message
				}
				r.spans = append(r.spans, sp)
			}
		}
	}
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.Key] = value(kv.Value)
	}
	return out
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, value(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return ""
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Metrics returns the names of the metrics received so far.
func (r *Receiver) Metrics() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.metrics)
}

// Raw is every export body received, concatenated: to assert that a
// text appears nowhere in them.
func (r *Receiver) Raw() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []byte
	for _, b := range r.bodies {
		out = append(out, b...)
	}
	return out
}

// Tree renders the spans as an indented tree of names, children under
// their parent in the order they started; a span whose parent was not
// received is a root, marked with the parent's id when it has one.
func (r *Receiver) Tree(attrKeys ...string) string {
	spans := r.Spans()
	byParent := map[string][]Span{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanID] = true
	}
	for _, s := range spans {
		p := s.ParentID
		if !ids[p] {
			p = ""
		}
		byParent[p] = append(byParent[p], s)
	}
	var b strings.Builder
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		kids := byParent[parent]
		slices.SortStableFunc(kids, func(x, y Span) int { return cmp.Compare(x.Start, y.Start) })
		for _, s := range kids {
			b.WriteString(strings.Repeat("  ", depth) + s.Name)
			for _, k := range attrKeys {
				if v, ok := s.Attrs[k]; ok {
					fmt.Fprintf(&b, " %s=%s", k, v)
				}
			}
			for _, e := range s.Events {
				b.WriteString(" event:" + e)
			}
			if depth == 0 && s.ParentID != "" {
				b.WriteString(" (parent " + s.ParentID + ")")
			}
			b.WriteString("\n")
			walk(s.SpanID, depth+1)
		}
	}
	walk("", 0)
	return b.String()
}
