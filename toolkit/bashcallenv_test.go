package toolkit

import (
	"context"
	"strings"
	"testing"
)

type callEnvKey struct{}

// TestBashCallEnv: each command gets the variables CallEnv returns for
// its call's context, over the base environment's.
func TestBashCallEnv(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, func(c *BashConfig) {
		c.Env = append(c.Env, "TRACEPARENT=00-from-the-ci")
		c.CallEnv = func(ctx context.Context) []string {
			v, _ := ctx.Value(callEnvKey{}).(string)
			return []string{"TRACEPARENT=" + v}
		}
	})
	for _, span := range []string{"00-aaaa-01", "00-bbbb-01"} {
		ctx := context.WithValue(t.Context(), callEnvKey{}, span)
		res := callBash(t, ctx, b, `printf '%s' "$TRACEPARENT"; env | grep -c '^TRACEPARENT='`, 0)
		if got := strings.TrimSpace(res.Content); got != span+"1" {
			t.Errorf("the command saw %q, want %q and one TRACEPARENT", got, span)
		}
	}
}
