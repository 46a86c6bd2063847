package run

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/harness"
)

// TestExecConfigNarrowSettings checks that each narrow view of an
// execConfig the harness-side helpers take carries the flags and the
// resolved settings they read, and no more.
func TestExecConfigNarrowSettings(t *testing.T) {
	t.Parallel()
	lc := &config.Loaded{Config: config.Config{
		CompactAt: 0.6,
		Limits:    config.Limits{MaxTurns: 7, Timeout: 3 * time.Second, MaxToolCalls: 9, MaxTokensTotal: 1000, MaxCost: 1.5},
		Bash:      config.Bash{PathAdd: []string{"/opt/bin"}},
		Shell:     config.Shell{Sandbox: "off", Network: true},
		Models:    map[string]config.Window{"m": {ContextWindow: 50000, MaxOutput: 4000}},
	}}
	cfg := execConfig{
		Provider: "p", Model: "m", KeyVar: "P_KEY", Settings: lc,
		PolicyFile: "/pol.toml", Allow: []string{"read:a"}, Deny: []string{"bash:b"}, TrustWorkspace: true,
		Dir: "/ws", PassEnv: []string{"KEEP"}, MCP: mcpChoice{ConfigFile: "/mcp.json"},
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"policySource", cfg.policySource(), policySource{Dir: "/ws", File: "/pol.toml", Allow: cfg.Allow, Deny: cfg.Deny, TrustWorkspace: true, Headless: true}},
		{"mcpPlace", cfg.mcpPlace(), mcpPlace{Choice: cfg.MCP, Dir: "/ws", Trusted: true}},
		{"initSettings", cfg.initSettings(), initSettings{Provider: "p", Model: "m", Allow: cfg.Allow, Deny: cfg.Deny, Limits: lc.Limits}},
		{"initSettings without configuration", execConfig{Provider: "p"}.initSettings(), initSettings{Provider: "p"}},
		{"bashSettings", cfg.bashSettings(), bashSettings{PassEnv: []string{"KEEP"}, KeyVars: cfg.keyVars(), PathAdd: []string{"/opt/bin"}, Shell: lc.Shell}},
		{"bashSettings without configuration", execConfig{}.bashSettings(), bashSettings{KeyVars: execConfig{}.keyVars(), Shell: config.Default().Shell}},
		{"compactSettings", compactSettings(cfg.Settings, cfg.Model, cfg.NoCompact, nil), compactConfig{Window: 50000, MaxOutput: 4000, At: 0.6}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %+v, want %+v", tt.name, tt.got, tt.want)
		}
	}
	if kv := cfg.bashSettings().KeyVars; !slices.Contains(kv, "P_KEY") {
		t.Errorf("bashSettings().KeyVars = %q, want the run's key variable among them", kv)
	}
}

// TestSecretsOfResolvedProvider checks that secrets reads the key from the
// resolved provider and the key variables from the configuration.
func TestSecretsOfResolvedProvider(t *testing.T) {
	t.Parallel()
	rp := config.ResolvedProvider{Name: "p", KeyEnv: "P_KEY"}.WithAPIKey("sk-resolved-key")
	vars := map[string]string{"OPENAI_API_KEY": "sk-other"}
	env := environment{Env: harness.Env{LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}}
	got := secrets(rp, nil, mcpPlace{Choice: mcpChoice{Off: true}}, env)
	for _, want := range []string{"sk-resolved-key", "sk-other"} {
		if !slices.Contains(got, want) {
			t.Errorf("secrets = %q, want %q among them", got, want)
		}
	}
}
