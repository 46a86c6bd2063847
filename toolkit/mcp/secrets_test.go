package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSecrets checks which configured values are a run's secrets: every
// header value as sent and its token, credential env values (by their
// name, or the variable they name) expanded, never a plain value, a short
// one or a provider key variable's.
func TestSecrets(t *testing.T) {
	t.Parallel()
	opts := Options{Environ: []string{"GH_TOKEN=gh-token-value-1", "PLAIN=plain-value-123", "MY_CRED_PASSWORD=pw-value-12345", "ANTHROPIC_API_KEY=sk-provider-key-1"},
		DropEnv: []string{"ANTHROPIC_API_KEY"}}
	servers := []ServerConfig{
		{Name: "web", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer ${GH_TOKEN}", "X-Team": "team-name-value", "X-Short": "abc"}},
		{Name: "loc", Command: "srv", Env: map[string]string{
			"GITHUB_PERSONAL_ACCESS_TOKEN": "${GH_TOKEN}",                         // a credential name
			"DB_URL":                       "postgres://u:${MY_CRED_PASSWORD}@db", // names a credential variable
			"LITERAL_API_KEY":              "literal-key-value",
			"ROOT_DIR":                     "/home/user/project", // plain
			"FROM_PLAIN":                   "${PLAIN}",           // plain
			"SHORT_TOKEN":                  "abc",
			"SMUGGLED_KEY":                 "${ANTHROPIC_API_KEY}", // expands to nothing: a dropped name
		}},
	}
	got := Secrets(servers, opts)
	for _, want := range []string{"Bearer gh-token-value-1", "gh-token-value-1", "team-name-value", "postgres://u:pw-value-12345@db", "literal-key-value"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets lack %q: %q", want, got)
		}
	}
	for _, bad := range []string{"/home/user/project", "plain-value-123", "abc", "sk-provider-key-1", ""} {
		if slices.Contains(got, bad) {
			t.Errorf("Secrets hold %q: %q", bad, got)
		}
	}
	for i := 1; i < len(got); i++ {
		if len(got[i]) > len(got[i-1]) {
			t.Errorf("not longest first: %q", got)
		}
	}
}

// TestStatusReasonRedacted checks that a server's start-up failure, which
// quotes its stderr, hides the server's credentials: the reason goes to
// stderr, `mcp list` and `doctor`.
func TestStatusReasonRedacted(t *testing.T) {
	t.Parallel()
	cfg := ServerConfig{Name: "bad", Command: "/bin/sh", Args: []string{"-c", `echo "login refused for $SVC_TOKEN" >&2; exit 1`},
		Env: map[string]string{"SVC_TOKEN": "svc-secret-value-9"}, StartupTimeout: 5 * time.Second}
	m := Start(context.Background(), []ServerConfig{cfg}, Options{Environ: []string{"PATH=/usr/bin:/bin"}, Dir: t.TempDir()})
	defer m.Close()
	st := m.Status()[0]
	if st.State != StateFailed || !strings.Contains(st.Reason, "login refused for [REDACTED]") || strings.Contains(st.Reason, "svc-secret") {
		t.Errorf("status: %+v", st)
	}
}
