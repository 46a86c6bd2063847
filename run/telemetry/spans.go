package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
)

// chatSpan is a model request under way.
type chatSpan struct {
	span  trace.Span
	start time.Time
	model string
	first bool // its first chunk arrived
}

// Around is the engine's [agent.Around]: each operation runs inside a
// span of its own, a child of the span ctx carries (else of the run's),
// so that what a tool starts can name it as its parent.
func (r *Run) Around(ctx context.Context, op agent.Op, do func(context.Context) error) error {
	if r == nil {
		return do(ctx)
	}
	name, kind, attrs := r.opSpan(op)
	start := time.Now()
	ctx, span := r.tracer.Start(r.parent(ctx), name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	r.mu.Lock()
	switch op.Kind {
	case agent.OpRequest:
		r.chat = &chatSpan{span: span, start: start, model: op.Model}
	case agent.OpToolCall:
		r.tools[op.Call.ID] = span
	}
	r.mu.Unlock()
	err := do(ctx)
	r.mu.Lock()
	switch op.Kind {
	case agent.OpRequest:
		r.chat = nil
		r.inst.opDuration(ctx, since(start), "chat", r.info.Provider, op.Model, err)
	case agent.OpToolCall:
		delete(r.tools, op.Call.ID)
		r.inst.toolDuration(ctx, since(start), op.Call.Name, err)
	}
	r.mu.Unlock()
	if err != nil {
		span.SetStatus(codes.Error, r.info.Redact(oneLine(r.statusError(err))))
		span.SetAttributes(attribute.String("error.type", fmt.Sprintf("%T", err)))
	}
	span.End()
	return err
}

// opSpan names the span of op, its kind and first attributes.
func (r *Run) opSpan(op agent.Op) (string, trace.SpanKind, []attribute.KeyValue) {
	switch op.Kind {
	case agent.OpRequest:
		return "chat " + op.Model, trace.SpanKindClient, []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", r.info.Provider),
			attribute.String("gen_ai.request.model", op.Model),
			attribute.Int("rubichan.turn", op.Turn),
		}
	case agent.OpToolCall:
		attrs := []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", op.Call.Name),
			attribute.String("gen_ai.tool.call.id", op.Call.ID),
			attribute.String("gen_ai.tool.type", toolType(op.Call.Name)),
			attribute.Int("rubichan.turn", op.Turn),
		}
		if r.s.Capture {
			attrs = append(attrs, attribute.String("gen_ai.tool.call.arguments", r.info.Redact(string(op.Call.Input))))
		}
		return "execute_tool " + op.Call.Name, trace.SpanKindInternal, attrs
	case agent.OpCompaction:
		return "compaction", trace.SpanKindClient, []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", r.info.Provider),
			attribute.String("gen_ai.request.model", op.Model),
		}
	default:
		return "verify", trace.SpanKindInternal, []attribute.KeyValue{attribute.Int("rubichan.verify.attempt", op.Attempt)}
	}
}

// toolType is the GenAI tool type: an MCP server's tool is an extension.
func toolType(name string) string {
	if strings.HasPrefix(name, "mcp__") {
		return "extension"
	}
	return "function"
}

// Observe reads an event of the run into the spans it belongs to: the
// engine's events carry the ids and figures a span needs.
func (r *Run) Observe(ev agent.Event) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Kind {
	case agent.EventTextDelta, agent.EventThinkingDelta:
		if c := r.chat; c != nil && !c.first {
			c.first = true
			c.span.SetAttributes(attribute.Float64("gen_ai.response.time_to_first_chunk", since(c.start)))
		}
	case agent.EventRetry:
		if c := r.chat; c != nil {
			c.first = false
			c.span.AddEvent("retry", trace.WithAttributes(attribute.Int("rubichan.retry.attempt", ev.Retry.Attempt),
				attribute.Float64("rubichan.retry.wait_s", ev.Retry.Wait.Seconds()), attribute.String("rubichan.retry.reason", r.info.Redact(ev.Retry.Reason))))
		}
	case agent.EventMessageDone:
		r.messageDone(ev)
	case agent.EventToolAllowed:
		r.policy(ev.Tool, "allow", ev.Allow.Rule)
	case agent.EventToolDenied:
		r.policy(ev.Tool, denial(ev.Denial), ev.Denial.Rule)
	case agent.EventToolResult:
		r.toolResult(ev)
	case agent.EventHook:
		r.hook(ev.Hook)
	case agent.EventSubquery:
		r.subquery(ev)
	case agent.EventTurnDone:
		r.turnDone(ev.Summary)
	}
}

// denial is the policy decision of a refused call.
func denial(d *agent.DenialInfo) string {
	switch {
	case d.Pending:
		return "defer"
	case d.Ask:
		return "ask"
	}
	return "deny"
}

func (r *Run) messageDone(ev agent.Event) {
	c := r.chat
	if c == nil || ev.Usage == nil {
		return
	}
	u := *ev.Usage
	model := c.model
	if ev.Response != nil && ev.Response.Model != "" {
		model = ev.Response.Model
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.response.model", model),
		attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(ev.Stop)}),
		attribute.Int("gen_ai.usage.input_tokens", u.InputTokens+u.CacheReadTokens+u.CacheCreationTokens),
		attribute.Int("gen_ai.usage.output_tokens", u.OutputTokens),
		attribute.Int("gen_ai.usage.cache_read.input_tokens", u.CacheReadTokens),
		attribute.Int("gen_ai.usage.cache_creation.input_tokens", u.CacheCreationTokens),
	}
	if ev.Response != nil && ev.Response.ID != "" {
		attrs = append(attrs, attribute.String("gen_ai.response.id", ev.Response.ID))
	}
	if ev.Cost != nil {
		attrs = append(attrs, attribute.Float64("rubichan.cost_usd", *ev.Cost))
	}
	if r.s.Capture {
		attrs = append(attrs, attribute.String("gen_ai.output.messages", outputMessages(r.info.Redact(ev.Text), string(ev.Stop))))
	}
	c.span.SetAttributes(attrs...)
	r.inst.tokens(context.Background(), "chat", r.info.Provider, c.model, u)
}

func (r *Run) policy(call *agent.ToolCallInfo, decision, rule string) {
	if call == nil {
		return
	}
	if s, ok := r.tools[call.ID]; ok {
		s.SetAttributes(attribute.String("rubichan.policy.decision", decision), attribute.String("rubichan.policy.rule", r.info.Redact(rule)))
	}
}

func (r *Run) toolResult(ev agent.Event) {
	s, ok := r.tools[ev.Tool.ID]
	if !ok || ev.Result == nil {
		return
	}
	if ev.Result.ExitCode != nil {
		s.SetAttributes(attribute.Int("rubichan.exit_code", *ev.Result.ExitCode))
	}
	if ev.Result.IsError {
		s.SetAttributes(attribute.String("error.type", "tool_error"))
	}
	if r.s.Capture {
		s.SetAttributes(attribute.String("gen_ai.tool.call.result", r.info.Redact(ev.Result.Content)))
	}
}

// hook records a finished hook as a span that ended now, a child of its
// tool call's span (a stop hook: of the run's).
func (r *Run) hook(h *agent.HookInfo) {
	if h == nil {
		return
	}
	parent := trace.ContextWithSpan(context.Background(), r.root)
	if s, ok := r.tools[h.ID]; ok && h.ID != "" {
		parent = trace.ContextWithSpan(context.Background(), s)
	}
	end := time.Now()
	_, span := r.tracer.Start(parent, "hook "+h.Name, trace.WithTimestamp(end.Add(-h.Duration)), trace.WithAttributes(
		attribute.String("rubichan.hook.event", h.Event), attribute.String("rubichan.hook.decision", h.Decision)))
	if h.ExitCode != nil {
		span.SetAttributes(attribute.Int("rubichan.exit_code", *h.ExitCode))
	}
	if h.Decision == "fail" {
		span.SetStatus(codes.Error, r.info.Redact(h.Reason))
	}
	span.End(trace.WithTimestamp(end))
}

func (r *Run) turnDone(sum *agent.Summary) {
	if sum == nil {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.Int("rubichan.exit_code", sum.ExitCode),
		attribute.String("rubichan.outcome", outcome(sum)),
		attribute.Int("gen_ai.usage.input_tokens", int(sum.InputTokens)),
		attribute.Int("gen_ai.usage.output_tokens", int(sum.OutputTokens)),
		attribute.Int("rubichan.turns", sum.Turns),
		attribute.Int("rubichan.tool_calls", sum.ToolCalls),
	}
	if sum.CostKnown {
		attrs = append(attrs, attribute.Float64("rubichan.cost_usd", sum.CostUSD))
	}
	r.root.SetAttributes(attrs...)
	if sum.ExitCode != 0 {
		r.root.SetStatus(codes.Error, outcome(sum))
	}
}

// SetConversation names the run's conversation: its session id.
func (r *Run) SetConversation(id string) {
	if r == nil || id == "" {
		return
	}
	r.root.SetAttributes(attribute.String("gen_ai.conversation.id", id))
}

// outcome is the result event's status for a run's summary.
func outcome(sum *agent.Summary) string {
	switch sum.ExitCode {
	case 0:
		return "success"
	case 3:
		if len(sum.Pending) > 0 {
			return "deferred"
		}
		return "denied"
	case 4:
		return "limit"
	case 130, 143:
		return "interrupted"
	}
	return "error"
}

// outputMessages is gen_ai.output.messages for one assistant text.
func outputMessages(text, finish string) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	b, _ := json.Marshal([]struct {
		Role   string `json:"role"`
		Parts  []part `json:"parts"`
		Finish string `json:"finish_reason"`
	}{{"assistant", []part{{"text", text}}, finish}})
	return string(b)
}

// oneLine is err's message on one line.
// statusError is err as a span's status tells it. A provider's message
// may quote the request (a prompt too long, a tool result it refused):
// message content, which leaves only with content capture on; without
// it a provider's error is told by its class, HTTP status and type.
func (r *Run) statusError(err error) error {
	var api *llm.APIError
	if r.s.Capture || !errors.As(err, &api) {
		return err
	}
	told := *api
	told.Message, told.Err = "", nil
	return &told
}

func oneLine(err error) string {
	if err == nil {
		return ""
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}
