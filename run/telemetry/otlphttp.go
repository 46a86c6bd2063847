package telemetry

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// defaultTimeout bounds one export when OTEL_EXPORTER_OTLP_TIMEOUT does
// not say (the specification's default, as the official exporters').
const defaultTimeout = 10 * time.Second

// maxAttempts bounds the tries of one export that the collector answers
// 429, 502, 503 or 504; the export's timeout (and the flush bound) bounds
// them too.
const maxAttempts = 5

// otlpClient posts OTLP/HTTP protobuf exports to one signal's endpoint.
type otlpClient struct {
	url     string
	headers map[string]string
	timeout time.Duration
	gzip    bool
	hc      *http.Client
	// backoff is the wait before retry n (1, 2, …) when the collector
	// does not say Retry-After.
	backoff func(n int) time.Duration
}

// newClient reads the signal's variables (signal is TRACES or METRICS)
// as the official exporters do: the signal-specific form wins over
// OTEL_EXPORTER_OTLP_*. Headers are name=value pairs separated by commas,
// values URL-decoded; the timeout is in milliseconds; the compression is
// gzip or none; CERTIFICATE is the PEM file of the CAs to trust. A file
// that cannot be read is an error, and so is a client certificate
// (CLIENT_CERTIFICATE, CLIENT_KEY: mutual TLS is not built in).
func newClient(lookup func(string) string, signal, endpoint string) (*otlpClient, error) {
	get := func(name string) string {
		return cmp.Or(lookup("OTEL_EXPORTER_OTLP_"+signal+"_"+name), lookup("OTEL_EXPORTER_OTLP_"+name))
	}
	c := &otlpClient{url: endpoint, headers: parseHeaders(get("HEADERS")), timeout: defaultTimeout,
		gzip: get("COMPRESSION") == "gzip", hc: &http.Client{},
		backoff: func(n int) time.Duration { return min(100*time.Millisecond<<n, 2*time.Second) }}
	if ms, err := strconv.Atoi(get("TIMEOUT")); err == nil && ms > 0 {
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	tc, err := tlsConfig(get("CERTIFICATE"), get("CLIENT_CERTIFICATE"), get("CLIENT_KEY"))
	if err != nil || tc == nil {
		return c, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	c.hc.Transport = tr
	return c, nil
}

// tlsConfig is the TLS configuration of the certificate files; nil when
// none is named.
func tlsConfig(ca, cert, key string) (*tls.Config, error) {
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	tc := &tls.Config{}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("telemetry: certificate: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("telemetry: certificate: no PEM certificate in %s", ca)
		}
	}
	if cert != "" || key != "" {
		// tls.LoadX509KeyPair links the private-key parsers: 277 KB.
		return nil, fmt.Errorf("telemetry: a client certificate (OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE, _CLIENT_KEY) is not built in")
	}
	return tc, nil
}

// parseHeaders reads OTEL_EXPORTER_OTLP_HEADERS; a malformed pair is left
// out.
func parseHeaders(v string) map[string]string {
	h := map[string]string{}
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n:") {
			continue
		}
		if dec, err := url.PathUnescape(val); err == nil {
			h[k] = strings.TrimSpace(dec)
		}
	}
	return h
}

// post sends body, retrying what the collector says to retry, within the
// timeout. Its errors never carry the headers.
func (c *otlpClient) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if c.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		body = buf.Bytes()
	}
	for n := 1; ; n++ {
		wait, err := c.try(ctx, body)
		if err == nil || wait < 0 || n == maxAttempts {
			return err
		}
		t := time.NewTimer(cmp.Or(wait, c.backoff(n)))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (%v)", err, ctx.Err())
		case <-t.C:
		}
	}
}

// try posts once. A wait >= 0 with the error says to retry after it (0:
// the client's backoff); a wait < 0 says not to.
func (c *otlpClient) try(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return -1, fmt.Errorf("telemetry: export to %s: %w", shownURL(c.url), err)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "rubichan OTLP/HTTP protobuf exporter")
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		// Not the *url.Error: its URL keeps a user (a token) and a query.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return -1, fmt.Errorf("telemetry: export to %s: %w", shownURL(c.url), err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return 0, nil
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		wait := time.Duration(0)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		return wait, fmt.Errorf("telemetry: export to %s: %s", shownURL(c.url), resp.Status)
	}
	return -1, fmt.Errorf("telemetry: export to %s: %s: %s", shownURL(c.url), resp.Status, oneLine(fmt.Errorf("%s", bytes.TrimSpace(msg))))
}

// spanExporter is the sdktrace.SpanExporter over otlpClient.
type spanExporter struct{ c *otlpClient }

var _ sdktrace.SpanExporter = spanExporter{}

func (e spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.c.post(ctx, encodeSpans(spans))
}

func (e spanExporter) Shutdown(context.Context) error { return nil }

// metricExporter is the sdkmetric.Exporter over otlpClient: cumulative
// temporality and the default aggregations, as the official exporter's
// defaults.
type metricExporter struct{ c *otlpClient }

var _ sdkmetric.Exporter = metricExporter{}

func (metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	body, err := encodeMetrics(rm)
	if perr := e.c.post(ctx, body); perr != nil {
		return perr
	}
	return err
}

func (metricExporter) ForceFlush(context.Context) error { return nil }
func (metricExporter) Shutdown(context.Context) error   { return nil }
