// Package otlptest is an OTLP/HTTP protobuf receiver for tests: it
// listens on 127.0.0.1, decodes the exports with the official proto types
// and keeps the spans and metrics, to assert the span tree, parents and
// attributes. Only tests import it.
package otlptest
