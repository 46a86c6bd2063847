package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/rubichan/rubichan/run/agent"
)

// subquery records a finished sub-query as a `chat {model}` span that
// ended now: a child of the span named by the TRACEPARENT the `rubichan
// query` command sent (the execute_tool span of the bash call that ran
// it), else of the run's.
func (r *Run) subquery(ev agent.Event) {
	q := ev.Subquery
	if q == nil {
		return
	}
	parent := trace.ContextWithSpan(context.Background(), r.root)
	if q.Traceparent != "" {
		if p := r.prop.Extract(context.Background(), propagation.MapCarrier{"traceparent": q.Traceparent}); trace.SpanContextFromContext(p).IsValid() {
			parent = p
		}
	}
	end := time.Now()
	_, span := r.tracer.Start(parent, "chat "+q.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(end.Add(-q.Duration)), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", r.info.Provider),
		attribute.String("gen_ai.request.model", q.Model),
		attribute.String("rubichan.subquery.status", q.Status),
		attribute.Int("gen_ai.usage.input_tokens", q.Usage.InputTokens+q.Usage.CacheReadTokens+q.Usage.CacheCreationTokens),
		attribute.Int("gen_ai.usage.output_tokens", q.Usage.OutputTokens),
		attribute.Int("gen_ai.usage.cache_read.input_tokens", q.Usage.CacheReadTokens),
		attribute.Int("gen_ai.usage.cache_creation.input_tokens", q.Usage.CacheCreationTokens),
	))
	span.End(trace.WithTimestamp(end))
	r.inst.tokens(context.Background(), "chat", r.info.Provider, q.Model, q.Usage)
}
