package toolkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
		"GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", "MANPAGER=cat", "LESSSECURE=1", "PWD=/ws",
		"GIT_CONFIG_COUNT=9",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
		"GIT_CONFIG_KEY_1=core.hooksPath", "GIT_CONFIG_VALUE_1=/dev/null",
		"GIT_CONFIG_KEY_2=core.pager", "GIT_CONFIG_VALUE_2=cat",
		"GIT_CONFIG_KEY_3=safe.bareRepository", "GIT_CONFIG_VALUE_3=explicit",
		"GIT_CONFIG_KEY_4=protocol.ext.allow", "GIT_CONFIG_VALUE_4=never",
		"GIT_CONFIG_KEY_5=core.sshCommand", "GIT_CONFIG_VALUE_5=ssh",
		"GIT_CONFIG_KEY_6=core.editor", "GIT_CONFIG_VALUE_6=true",
		"GIT_CONFIG_KEY_7=sequence.editor", "GIT_CONFIG_VALUE_7=true",
		"GIT_CONFIG_KEY_8=core.askPass", "GIT_CONFIG_VALUE_8=",
		"GIT_CONFIG_PARAMETERS='core.fsmonitor=false' 'core.hooksPath=/dev/null' 'core.pager=cat' 'safe.bareRepository=explicit' 'protocol.ext.allow=never' " +
			"'core.sshCommand=ssh' 'core.editor=true' 'sequence.editor=true' 'core.askPass='",
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
			base: []string{"NOEQUALS", "=nameless", "NUL=a\x00b", "OK=1"},
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
			got := commandEnv(tc.base, tc.allow, tc.drop, "/ws", nil)
			want := append(slices.Clone(tc.keep), forced...)
			if !slices.Equal(got, want) {
				t.Errorf("commandEnv(%q, allow %q, drop %q) =\n%q\nwant\n%q", tc.base, tc.allow, tc.drop, got, want)
			}
		})
	}
}

func TestBashScrubsEnvironment(t *testing.T) {
	t.Parallel()
	b, dir := newTestBash(t, func(c *BashConfig) {
		c.Env = append(c.Env,
			"ANTHROPIC_API_KEY=sk-ant-secret", "GITHUB_TOKEN=ghp_secret", "db_password=hunter2",
			"AWS_SECRET_ACCESS_KEY=aws", "LLM_GATEWAY_AUTH=gw", "CI_JOB_TOKEN=job-token", "PLAIN=visible",
			"PAGER=less", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/evil")
		c.EnvAllow = []string{"CI_JOB_TOKEN"}
		c.DropEnv = []string{"LLM_GATEWAY_AUTH"}
	})
	res := callBash(t, t.Context(), b, "env", 0)
	env := map[string]string{}
	for _, line := range strings.Split(res.Content, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	for _, name := range []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "db_password", "AWS_SECRET_ACCESS_KEY", "LLM_GATEWAY_AUTH"} {
		if v, ok := env[name]; ok {
			t.Errorf("%s=%s reached the command", name, v)
		}
	}
	for _, s := range []string{"sk-ant-secret", "ghp_secret", "hunter2", "gw"} {
		if strings.Contains(res.Content, "="+s) {
			t.Errorf("secret value %q reached the command", s)
		}
	}
	for name, want := range map[string]string{
		"CI_JOB_TOKEN": "job-token", "PLAIN": "visible", "PWD": dir,
		"GIT_EDITOR": "true", "GIT_TERMINAL_PROMPT": "0", "PAGER": "cat", "GIT_PAGER": "cat",
		"GIT_CONFIG_COUNT": "9", "GIT_CONFIG_KEY_1": "core.hooksPath", "GIT_CONFIG_VALUE_1": "/dev/null",
	} {
		if got, ok := env[name]; !ok || got != want {
			t.Errorf("%s = %q (set %v), want %q", name, got, ok, want)
		}
	}
}

func TestBashHardensGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	b, dir := newTestBash(t, nil)
	marks := t.TempDir()
	fsmon, hook := filepath.Join(marks, "fsmonitor-ran"), filepath.Join(marks, "hook-ran")
	plain := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
	gitEnv := func(env []string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git := func(args ...string) { t.Helper(); gitEnv(plain, args...) }
	git("init", "-q", ".")
	git("config", "user.email", "ci@example.invalid")
	git("config", "user.name", "ci")
	git("config", "core.fsmonitor", "touch "+fsmon+"; false")
	git("config", "core.pager", "touch "+marks+"/pager-ran; cat")
	// programs a fetch, a rebase -i or a password prompt would run
	git("config", "core.sshCommand", "touch "+marks+"/ssh-ran; false")
	git("config", "sequence.editor", "touch "+marks+"/seq-editor-ran; true")
	git("config", "core.editor", "touch "+marks+"/editor-ran; true")
	git("config", "core.askPass", "touch "+marks+"/askpass-ran; false")
	if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\ntouch "+hook+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	// Unhardened, this repository runs code: the test is only worth
	// something if these marks appear.
	git("status")
	git("commit", "-q", "--allow-empty", "-m", "one")
	for _, m := range []string{fsmon, hook} {
		if err := os.Remove(m); err != nil {
			t.Fatalf("plain git did not run %s: %v", filepath.Base(m), err)
		}
	}

	res := callBash(t, t.Context(), b, "git status --short && git commit -q --allow-empty -m two && git rev-list --count HEAD && "+
		"git var GIT_PAGER && git config core.pager && git config core.hooksPath && git config core.fsmonitor", 0)
	if want := "2\ncat\ncat\n/dev/null\nfalse\n"; res.IsError || res.Content != want {
		t.Errorf("result %+v, want content %q", res, want)
	}
	// a fetch over ssh (127.0.0.1, a closed port: it fails either way) and
	// an interactive rebase
	res = callBash(t, t.Context(), b, "git ls-remote ssh://127.0.0.1:9/x; git rebase -q -i HEAD~1 && git config core.sshCommand && git config sequence.editor", 0)
	if !strings.HasSuffix(res.Content, "ssh\ntrue\n") {
		t.Errorf("result %+v, want ssh and true at the end", res)
	}
	noMarks := func(how string) {
		t.Helper()
		for _, m := range []string{fsmon, hook, filepath.Join(marks, "pager-ran"), filepath.Join(marks, "ssh-ran"),
			filepath.Join(marks, "seq-editor-ran"), filepath.Join(marks, "editor-ran"), filepath.Join(marks, "askpass-ran")} {
			if _, err := os.Stat(m); !os.IsNotExist(err) {
				t.Errorf("%s: %s exists: the repository ran code through git (stat %v)", how, filepath.Base(m), err)
			}
		}
	}
	noMarks("bash tool")

	// Each way of passing the hardening works alone, for the git versions
	// that read only one of them.
	for how, leaveOut := range map[string]func(string) bool{
		"GIT_CONFIG_COUNT alone": func(kv string) bool { return strings.HasPrefix(kv, "GIT_CONFIG_PARAMETERS=") },
		"GIT_CONFIG_PARAMETERS alone": func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return name != "GIT_CONFIG_PARAMETERS" && isGitConfigEnv(name)
		},
	} {
		env := slices.DeleteFunc(slices.Clone(b.env), leaveOut)
		gitEnv(env, "status")
		gitEnv(env, "commit", "-q", "--allow-empty", "-m", how)
		noMarks(how)
	}
}

func TestLookupEnv(t *testing.T) {
	env := []string{"HOMEDIR=/x", "HOME=/first", "PATH=/bin", "HOME=/last", "EMPTY="}
	for name, want := range map[string]string{"HOME": "/last", "PATH": "/bin", "HOMED": "", "EMPTY": "", "NONE": ""} {
		if got := LookupEnv(env, name); got != want {
			t.Errorf("LookupEnv(%q) = %q, want %q", name, got, want)
		}
	}
}
