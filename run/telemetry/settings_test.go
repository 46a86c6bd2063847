package telemetry_test

import (
	"slices"
	"testing"

	"github.com/rubichan/rubichan/run/telemetry"
)

// TestHeaderSecrets: each header value of the OTEL_*_HEADERS variables is
// a secret as written and as the SDK sends it (the spec's values are
// percent-encoded: "Bearer%20tok" is sent as "Bearer tok"), with the
// token after a scheme on its own, so a tool that prints the decoded
// form is redacted too.
func TestHeaderSecrets(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer tok-plain"}, []string{"Bearer tok-plain", "tok-plain"}},
		{map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20tok-enc,x-team=team%2Fkey"}, []string{"Bearer%20tok-enc", "Bearer tok-enc", "tok-enc", "team%2Fkey", "team/key"}},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key=k%3Dv"}, []string{"k%3Dv", "k=v"}},
	} {
		got := telemetry.HeaderSecrets(func(k string) string { return tc.env[k] })
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%v: secrets %q lack %q", tc.env, got, w)
			}
		}
	}
}
