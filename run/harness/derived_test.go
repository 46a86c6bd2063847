package harness

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
)

// TestSettingsNarrowViews checks that each narrow view of the Settings the
// harness's helpers take carries the flags and the resolved settings they
// read, and no more.
func TestSettingsNarrowViews(t *testing.T) {
	t.Parallel()
	lc := &config.Loaded{Config: config.Config{
		CompactAt: 0.6,
		Limits:    config.Limits{MaxTurns: 7, Timeout: 3 * time.Second, MaxToolCalls: 9, MaxTokensTotal: 1000, MaxCost: 1.5},
		Bash:      config.Bash{PathAdd: []string{"/opt/bin"}},
		Shell:     config.Shell{Sandbox: "off", Network: true},
		Models:    map[string]config.Window{"m": {ContextWindow: 50000, MaxOutput: 4000}},
	}}
	s := Settings{
		Provider: config.ResolvedProvider{Name: "p", Model: "m", KeyEnv: "P_KEY"}, Config: lc,
		Policy: PolicySettings{File: "/pol.toml", Allow: []string{"read:a"}, Deny: []string{"bash:b"}, TrustWorkspace: true},
		Dir:    "/ws", PassEnv: []string{"KEEP"}, MCP: MCPChoice{ConfigFile: "/mcp.json"},
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"policySource", s.PolicySource(s.Dir), PolicySource{Dir: "/ws", File: "/pol.toml", Allow: s.Policy.Allow, Deny: s.Policy.Deny, TrustWorkspace: true, Headless: true}},
		{"mcpPlace", s.MCPPlace(s.Dir), MCPPlace{Choice: s.MCP, Dir: "/ws", Trusted: true}},
		{"initSettings", s.InitSettings(), InitSettings{Provider: "p", Model: "m", Allow: s.Policy.Allow, Deny: s.Policy.Deny, Limits: lc.Limits}},
		{"initSettings without configuration", Settings{Provider: config.ResolvedProvider{Name: "p"}}.InitSettings(), InitSettings{Provider: "p"}},
		{"bashSettings", s.BashSettings(), BashSettings{PassEnv: []string{"KEEP"}, KeyVars: s.KeyVars(), PathAdd: []string{"/opt/bin"}, Shell: lc.Shell}},
		{"bashSettings without configuration", Settings{}.BashSettings(), BashSettings{KeyVars: Settings{}.KeyVars(), Shell: config.Default().Shell}},
		{"compactSettings", CompactSettings(s.Config, s.Provider.Model, s.NoCompact, nil), agent.Compact{Window: 50000, MaxOutput: 4000, At: 0.6}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %+v, want %+v", tt.name, tt.got, tt.want)
		}
	}
	if kv := s.BashSettings().KeyVars; !slices.Contains(kv, "P_KEY") {
		t.Errorf("bashSettings().KeyVars = %q, want the run's key variable among them", kv)
	}
}

// TestSecretsOfResolvedProvider checks that secrets reads the key from the
// resolved provider and the key variables from the configuration.
func TestSecretsOfResolvedProvider(t *testing.T) {
	t.Parallel()
	rp := config.ResolvedProvider{Name: "p", KeyEnv: "P_KEY"}.WithAPIKey("sk-resolved-key")
	vars := map[string]string{"OPENAI_API_KEY": "sk-other"}
	env := Env{LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	got := Secrets(rp, nil, MCPPlace{Choice: MCPChoice{Off: true}}, env)
	for _, want := range []string{"sk-resolved-key", "sk-other"} {
		if !slices.Contains(got, want) {
			t.Errorf("secrets = %q, want %q among them", got, want)
		}
	}
}
