package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/patch"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// reachTimeout bounds the doctor's request to the provider.
const reachTimeout = 5 * time.Second

func checkConfig(_ context.Context, st *state) []Check {
	if st.lcErr != nil {
		fix := "correct the value it names"
		var ce *config.Error
		if errors.As(st.lcErr, &ce) && ce.File != config.FromCommandLine {
			fix = "correct " + ce.File + " (or the variable it names); `rubichan config show` prints every value with its origin"
		}
		return []Check{{Status: StatusProblem, Detail: st.lcErr.Error(), Fix: fix}}
	}
	detail := "no config file; built-in defaults"
	if len(st.lc.Files) > 0 {
		detail = "read " + strings.Join(st.lc.Files, ", ")
	}
	var set []string
	for _, v := range configSet(st.lc, st.rp, st.rpErr).Set {
		set = append(set, v.Key+" ("+v.Origin+")")
	}
	if len(set) > 0 {
		detail += "; set: " + strings.Join(set, ", ")
	}
	out := []Check{{Status: StatusOK, Detail: detail}}
	for _, n := range st.lc.Notes {
		out = append(out, Check{Status: StatusWarning, Detail: n, Fix: "pass --trust-workspace if this checkout is trusted"})
	}
	return out
}

func checkProvider(_ context.Context, st *state) []Check {
	switch {
	case st.lc == nil:
		return []Check{{Status: StatusSkipped, Detail: "the configuration did not load"}}
	case st.rpErr != nil && !st.keyMissing:
		return []Check{{Status: StatusProblem, Detail: st.rpErr.Error(),
			Fix: "export the API key of your provider (ANTHROPIC_API_KEY, OPENAI_API_KEY, …), or choose one with --provider or provider = \"…\" in a config file"}}
	}
	p := st.rp
	return []Check{{Status: StatusOK, Detail: fmt.Sprintf("%s (%s; %s), model %s (%s), base URL %s (%s)",
		p.Name, p.Type, p.Chosen, p.Model, orDefault(p.ModelFrom), p.BaseURL, orDefault(p.BaseURLFrom))}}
}

// orDefault is where a value came from, "default" when nowhere else.
func orDefault(from string) string {
	if from == "" {
		return "default"
	}
	return from
}

func checkKey(_ context.Context, st *state) []Check {
	switch {
	case st.lc == nil || st.rpErr != nil && !st.keyMissing:
		return []Check{{Status: StatusSkipped, Detail: "no provider"}}
	case st.keyMissing:
		return []Check{{Status: StatusProblem, Detail: st.rp.KeyEnv + " is not set",
			Fix: "export " + st.rp.KeyEnv + " (in CI: from a secret, through env: on the step)"}}
	case st.rp.KeyEnv == "":
		return []Check{{Status: StatusOK, Detail: "none needed"}}
	}
	return []Check{{Status: StatusOK, Detail: "present in " + st.rp.KeyEnv + " (not shown)"}}
}

// checkReachable sends the provider one cheap request, the list of its
// models, and reports how it answered.
func checkReachable(ctx context.Context, st *state) []Check {
	switch {
	case st.lc == nil || st.rpErr != nil && !st.keyMissing:
		return []Check{{Status: StatusSkipped, Detail: "no provider"}}
	case st.opts.Offline:
		return []Check{{Status: StatusSkipped, Detail: "--offline"}}
	}
	u := modelsURL(st.rp)
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return []Check{{Status: StatusProblem, Detail: "base URL " + st.rp.BaseURL + ": " + err.Error(), Fix: "correct base_url (" + orDefault(st.rp.BaseURLFrom) + ")"}}
	}
	setProbeHeaders(req, st.rp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return []Check{{Status: StatusProblem, Detail: "GET " + u + " failed: " + probeError(err),
			Fix: "check base_url (" + orDefault(st.rp.BaseURLFrom) + "), the network and any proxy (HTTPS_PROXY); --offline skips this check"}}
	}
	resp.Body.Close()
	switch {
	case (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && !st.keyMissing:
		return []Check{{Status: StatusProblem, Detail: fmt.Sprintf("the provider answered HTTP %d to GET %s: the key is not accepted", resp.StatusCode, u),
			Fix: "check the key in " + st.rp.KeyEnv + " (its account, project and expiry) and that it belongs to this base URL"}}
	case resp.StatusCode < 300:
		return []Check{{Status: StatusOK, Detail: fmt.Sprintf("GET %s: HTTP %d", u, resp.StatusCode)}}
	}
	return []Check{{Status: StatusOK, Detail: fmt.Sprintf("GET %s: HTTP %d (the server answers; not every endpoint lists models)", u, resp.StatusCode)}}
}

// probeError says why a request failed, without the URL the error repeats.
func probeError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", reachTimeout)
	}
	return err.Error()
}

// modelsURL is the provider's list of models: {base}/v1/models for
// Anthropic, {base}/models for OpenAI (with /v1 added to a bare host, as
// the client does).
func modelsURL(rp config.ResolvedProvider) string {
	base := strings.TrimRight(rp.BaseURL, "/")
	if rp.Type == config.ProviderAnthropic {
		return base + "/v1/models"
	}
	if u, err := url.Parse(base); err == nil && u.Host != "" && u.Path == "" && u.RawQuery == "" {
		base += "/v1"
	}
	return base + "/models"
}

// setProbeHeaders authenticates the probe as the client would.
func setProbeHeaders(req *http.Request, rp config.ResolvedProvider) {
	for k, v := range rp.Headers {
		req.Header.Set(k, v)
	}
	key := rp.APIKey()
	if rp.Type == config.ProviderAnthropic {
		req.Header.Set("anthropic-version", "2023-06-01")
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		return
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
}

func checkPolicy(_ context.Context, st *state) []Check {
	var notes strings.Builder
	pol, err := harness.LoadPolicy(st.opts.Policy, &notes)
	if err != nil {
		fix := "correct the policy file; `rubichan policy check --policy FILE --tool shell -- CMD` shows how it judges a call"
		var le *policy.LoadError
		if errors.As(err, &le) && strings.Contains(err.Error(), "self-test failed") {
			fix = "make the rule or the [[test]] it names agree; `rubichan policy check` shows which rule decides"
		}
		return []Check{{Status: StatusProblem, Detail: err.Error(), Fix: fix}}
	}
	if err := pol.SelfTest(); err != nil { // the built-in policy's are not run at load
		return []Check{{Status: StatusProblem, Detail: err.Error(), Fix: "make the rule or the [[test]] it names agree; `rubichan policy check` shows which rule decides"}}
	}
	detail := fmt.Sprintf("%s: valid, %d self-tests passed", pol.Name(), pol.SelfTests())
	out := []Check{{Status: StatusOK, Detail: detail}}
	for _, l := range strings.Split(strings.TrimSpace(notes.String()), "\n") {
		if l = strings.TrimPrefix(l, "rubichan: "); l != "" {
			out = append(out, Check{Status: StatusWarning, Detail: l, Fix: "see the policy's rules; the warning says which"})
		}
	}
	return out
}

// checkSessions checks that a run could write its session log: the
// directory is made if need be and a file is created in it and removed.
func checkSessions(_ context.Context, st *state) []Check {
	dir := st.opts.SessionDir
	if dir == "" {
		home, _ := st.opts.Env.LookupEnv("HOME")
		dir = session.DefaultDir(st.opts.Env.LookupEnv, home)
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(dir, ".doctor-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
	if err != nil {
		return []Check{{Status: StatusProblem, Detail: dir + " is not writable: " + err.Error(),
			Fix: "make it writable, choose another with --session-dir (RUBICHAN_SESSION_DIR) or --session-file, or run with --no-session"}}
	}
	return []Check{{Status: StatusOK, Detail: dir + " is writable"}}
}

// checkGit reports the git that rubichan's own git commands (--patch)
// would run: found in the PATH of the scrubbed environment (never in the
// workspace), run with that environment (no key), git's hardening and the
// drivers of the repository's configuration blanked, as patch mode runs it.
func checkGit(ctx context.Context, st *state) []Check {
	dir := st.opts.Dir
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	var base []string
	if st.opts.Env.Environ != nil {
		base = st.opts.Env.Environ()
	}
	drop := harness.ProviderKeyVars(st.lc)
	if st.rp.KeyEnv != "" {
		drop = append(drop, st.rp.KeyEnv)
	}
	env := patch.Environment(base, drop, dir)
	path, err := patch.Program(env)
	if err != nil {
		return []Check{{Status: StatusWarning, Detail: "git not found in PATH (outside the workspace)",
			Fix: "install git: --patch needs it in a git workspace, and the model's git commands fail without it"}}
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	out, err := patch.Run(ctx, env, dir, "--version")
	if err != nil {
		return []Check{{Status: StatusWarning, Detail: path + " --version failed: " + err.Error(), Fix: "reinstall git"}}
	}
	detail := strings.TrimSpace(string(out))
	if top, err := patch.Run(ctx, env, dir, "rev-parse", "--show-toplevel"); err == nil {
		detail += "; the workspace is in the repository " + strings.TrimSpace(string(top))
	} else {
		detail += "; the workspace is not in a git repository (--patch copies it whole)"
	}
	return []Check{{Status: StatusOK, Detail: detail}}
}

func checkTerminal(_ context.Context, st *state) []Check {
	w := st.opts.Stdout
	ew := st.opts.Stderr
	yes := func(b bool) string {
		if b {
			return "a terminal"
		}
		return "not a terminal"
	}
	why := "stderr is " + yes(sink.IsTerminal(ew))
	if v, ok := st.opts.Env.LookupEnv("NO_COLOR"); ok && v != "" {
		why = "NO_COLOR is set"
	} else if v, _ := st.opts.Env.LookupEnv("TERM"); v == "dumb" {
		why = "TERM=dumb"
	}
	colors := "no"
	if sink.ColorEnabled("auto", sink.IsTerminal(ew), st.opts.Env.LookupEnv) {
		colors = "yes"
	}
	return []Check{{Status: StatusInfo, Detail: fmt.Sprintf("stdout is %s, stderr is %s; colors on stderr: %s (%s; --color always|never overrides)",
		yes(sink.IsTerminal(w)), yes(sink.IsTerminal(ew)), colors, why)}}
}

func checkSandbox(_ context.Context, st *state) []Check {
	if st.lc == nil {
		return []Check{{Status: StatusSkipped, Detail: "the configuration did not load"}}
	}
	box := harness.AchieveSandbox(st.lc.Shell, st.opts.Env)
	detail := fmt.Sprintf("mode %s; filesystem confined: %v; network %s", box.Mode, box.Filesystem, box.Network)
	if box.Available {
		detail += fmt.Sprintf("; Landlock ABI %d", box.ABI)
	}
	if box.NoIsolation != "" {
		detail += "; no namespaces (" + box.NoIsolation + ")"
	}
	if err := box.Unmet(); err != nil {
		fix := "run on a Linux kernel with Landlock (5.13 or later, enabled in the LSM list), or set [shell] sandbox = \"auto\" or --sandbox auto"
		if box.Available && box.Network != sandbox.NetUnblockable && !box.Isolated {
			fix = "let rubichan create user namespaces (sysctl kernel.unprivileged_userns_clone=1, kernel.apparmor_restrict_unprivileged_userns=0; in a container a seccomp profile that allows them), or set [shell] sandbox = \"auto\" or --sandbox auto"
		}
		return []Check{{Status: StatusProblem, Detail: err.Error(), Fix: fix}}
	}
	return []Check{{Status: StatusOK, Detail: detail + " (`rubichan sandbox check` proves it with a self-test)"}}
}

// checkGitHub checks, under GitHub Actions, that the job summary can be
// written.
func checkGitHub(_ context.Context, st *state) []Check {
	if v, _ := st.opts.Env.LookupEnv("GITHUB_ACTIONS"); v != "true" {
		return nil
	}
	path, _ := st.opts.Env.LookupEnv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return []Check{{Status: StatusWarning, Detail: "GITHUB_STEP_SUMMARY is not set: no job summary", Fix: "run rubichan in a step of a job, where the runner sets it"}}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return []Check{{Status: StatusProblem, Detail: "the job summary file cannot be written: " + err.Error(), Fix: "check GITHUB_STEP_SUMMARY, or pass --github=false to exec"}}
	}
	f.Close()
	return []Check{{Status: StatusOK, Detail: "GitHub Actions: job summary and annotations on (--github=false turns them off)"}}
}
