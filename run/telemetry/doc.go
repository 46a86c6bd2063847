// Package telemetry exports a run as an OpenTelemetry trace (and its
// GenAI metrics) over OTLP/HTTP protobuf, following the GenAI semantic
// conventions of [SemconvVersion]: an `invoke_agent rubichan` span for the
// run, a `chat {model}` span per model request and an `execute_tool
// {tool}` span per tool call, with compaction, verify checks, hooks and
// sub-queries as spans of their own.
//
// The spans and metrics are the official SDK's; the exporter that writes
// them as OTLP/HTTP protobuf (otlpenc.go, otlphttp.go) is ours, so that
// neither gRPC nor the protobuf runtime is linked: their initialisers would
// run at every start, telemetry on or off.
//
// It owns everything that imports go.opentelemetry.io: the engine
// (run/agent) knows nothing of it and is reached through its seams
// ([agent.Options.Around] and the events). The harness imports it and
// wires a [Run] into one run; the command layer imports it to start that
// Run before the harness opens; nothing else may. When telemetry is off
// ([Settings.On] false) [Start] returns a nil *Run, whose methods do
// nothing: no exporter, no goroutine.
package telemetry
