package run

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/config"
)

func TestExecConfigHidesKey(t *testing.T) {
	t.Parallel()
	cfg := execConfig{Resolved: config.ResolvedProvider{Name: "anthropic"}.WithAPIKey(secretKey)}
	for _, out := range []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(cfg)} {
		if strings.Contains(out, secretKey) {
			t.Errorf("execConfig prints its key: %s", out)
		}
	}
}
