package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/rubichan/rubichan/llm"
)

// instruments are the run's GenAI client metrics and the tool duration.
type instruments struct {
	tokenHist        metric.Int64Histogram
	opHist, toolHist metric.Float64Histogram
}

func newInstruments(m metric.Meter) instruments {
	var in instruments
	in.tokenHist, _ = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used"))
	in.opHist, _ = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration"))
	in.toolHist, _ = m.Float64Histogram("rubichan.tool.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of one tool call: judge, hooks and run"))
	return in
}

func (in instruments) tokens(ctx context.Context, op, provider, model string, u llm.Usage) {
	base := []attribute.KeyValue{attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.provider.name", provider), attribute.String("gen_ai.request.model", model)}
	in.tokenHist.Record(ctx, int64(u.InputTokens+u.CacheReadTokens+u.CacheCreationTokens), metric.WithAttributes(append(base, attribute.String("gen_ai.token.type", "input"))...))
	in.tokenHist.Record(ctx, int64(u.OutputTokens), metric.WithAttributes(append(base, attribute.String("gen_ai.token.type", "output"))...))
}

func (in instruments) opDuration(ctx context.Context, secs float64, op, provider, model string, err error) {
	attrs := []attribute.KeyValue{attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.provider.name", provider), attribute.String("gen_ai.request.model", model)}
	if err != nil {
		attrs = append(attrs, attribute.String("error.type", "error"))
	}
	in.opHist.Record(ctx, secs, metric.WithAttributes(attrs...))
}

func (in instruments) toolDuration(ctx context.Context, secs float64, tool string, err error) {
	attrs := []attribute.KeyValue{attribute.String("gen_ai.tool.name", tool)}
	if err != nil {
		attrs = append(attrs, attribute.String("error.type", "error"))
	}
	in.toolHist.Record(ctx, secs, metric.WithAttributes(attrs...))
}
