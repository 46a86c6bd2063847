package toolkit

import (
	"slices"
	"testing"
)

func TestLooksSecret(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"ANTHROPIC_API_KEY":              true,
		"GITHUB_TOKEN":                   true,
		"github_token":                   true,
		"AWS_SECRET_ACCESS_KEY":          true,
		"PGPASSWORD":                     true,
		"FTP_PASSWD":                     true,
		"GOOGLE_APPLICATION_CREDENTIALS": true,
		"SSH_PRIVATE_KEY":                true,
		"PATH":                           false,
		"HOME":                           false,
		"PWD":                            false,
		"GOFLAGS":                        false,
		"SSH_AUTH_SOCK":                  false,
	} {
		if got := looksSecret(name); got != want {
			t.Errorf("looksSecret(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCommandEnv(t *testing.T) {
	t.Parallel()
	forced := []string{
		"GIT_EDITOR=true", "EDITOR=true", "VISUAL=true", "GIT_PAGER=cat", "PAGER=cat",
		"GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", "PWD=/ws",
		"GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
		"GIT_CONFIG_KEY_1=core.hooksPath", "GIT_CONFIG_VALUE_1=/dev/null",
		"GIT_CONFIG_KEY_2=core.pager", "GIT_CONFIG_VALUE_2=cat",
	}
	tests := map[string]struct {
		base, allow, drop []string
		keep              []string // the inherited entries that survive, in order
	}{
		"nothing inherited": {},
		"plain names pass": {
			base: []string{"PATH=/bin", "HOME=/h", "LANG=C.UTF-8", "EMPTY="},
			keep: []string{"PATH=/bin", "HOME=/h", "LANG=C.UTF-8", "EMPTY="},
		},
		"secrets dropped": {
			base: []string{"A=1", "OPENAI_API_KEY=sk", "GH_TOKEN=t", "my_secret=s", "DB_PASSWORD=p", "B=2"},
			keep: []string{"A=1", "B=2"},
		},
		"allow-list passes one through": {
			base:  []string{"CI_JOB_TOKEN=j", "NPM_TOKEN=n"},
			allow: []string{"CI_JOB_TOKEN"},
			keep:  []string{"CI_JOB_TOKEN=j"},
		},
		"allow-list is exact": {
			base:  []string{"CI_JOB_TOKEN=j"},
			allow: []string{"ci_job_token", "CI_JOB"},
		},
		"drop removes plain names": {
			base: []string{"LLM_GATEWAY_AUTH=x", "A=1"},
			drop: []string{"LLM_GATEWAY_AUTH"},
			keep: []string{"A=1"},
		},
		"drop wins over allow": {
			base:  []string{"ANTHROPIC_API_KEY=k"},
			allow: []string{"ANTHROPIC_API_KEY"},
			drop:  []string{"ANTHROPIC_API_KEY"},
		},
		"inherited git config dropped": {
			base: []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/evil",
				"GIT_CONFIG_PARAMETERS='core.pager'='evil'", "GIT_CONFIG_GLOBAL=/g"},
			allow: []string{"GIT_CONFIG_KEY_0"},
			keep:  []string{"GIT_CONFIG_GLOBAL=/g"},
		},
		"forced values replace inherited ones": {
			base:  []string{"PAGER=less", "GIT_PAGER=less", "EDITOR=vim", "PWD=/elsewhere", "GIT_TERMINAL_PROMPT=1"},
			allow: []string{"PAGER"},
		},
		"malformed entries dropped": {
			base: []string{"NOEQUALS", "=nameless", "OK=1"},
			keep: []string{"OK=1"},
		},
		"duplicates kept in order": {
			base: []string{"A=1", "A=2"},
			keep: []string{"A=1", "A=2"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := commandEnv(tc.base, tc.allow, tc.drop, "/ws")
			want := append(slices.Clone(tc.keep), forced...)
			if !slices.Equal(got, want) {
				t.Errorf("commandEnv(%q, allow %q, drop %q) =\n%q\nwant\n%q", tc.base, tc.allow, tc.drop, got, want)
			}
		})
	}
}
