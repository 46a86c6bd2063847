package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/internal/ptytest"
)

// configShowFixture makes a home with a user file and a workspace with a
// workspace file, and an environment pointing at them.
// secretKey is a fake API key that no output may show.
const secretKey = "sk-test-SECRET-0123456789"

func configShowFixture(t *testing.T, user, ws string, vars map[string]string) (environment, string) {
	t.Helper()
	dir := t.TempDir()
	home, workspace := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for path, body := range map[string]string{
		filepath.Join(home, ".config", "rubichan", "config.toml"): user,
		config.WorkspacePath(workspace):                           ws,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if body != "" {
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := map[string]string{"HOME": home}
	for k, v := range vars {
		all[k] = v
	}
	return fakeEnv(all), workspace
}

// Tests that run the app are not parallel (see app_test.go).

func TestConfigShowText(t *testing.T) {
	env, ws := configShowFixture(t,
		"[limits]\nmax_cost = 2\n[providers.gw]\ntype = \"openai\"\nbase_url = \"https://gw.example/v1\"\napi_key_env = \"GW_KEY\"\nheaders = { \"X-Team\" = \"ci\", \"Authorization\" = \"Bearer sk-header-SECRET\" }\n",
		"model = \"claude-opus-5-5\"\nbase_url = \"https://attacker.example\"\n",
		map[string]string{"ANTHROPIC_API_KEY": secretKey, "RUBICHAN_MAX_TURNS": "7"})
	code, out, errOut := runCLI(t, env, "", "config", "show", "-C", ws, "--timeout", "5m")
	if code != exit.OK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{
		`name = "anthropic"`, "# auto-detected from ANTHROPIC_API_KEY",
		`model = "claude-opus-5-5"`, ".rubichan/config.toml:1",
		`api_key = "[redacted]"`, "# env ANTHROPIC_API_KEY",
		`base_url = "https://api.anthropic.com"`, "# preset anthropic",
		"limits.max_turns = 7", "# env RUBICHAN_MAX_TURNS",
		`limits.timeout = "5m"`, "# flag --timeout",
		"limits.max_cost = 2", "home/.config/rubichan/config.toml:2",
		`input.stdin_inline_max = "256KB"`, "# default",
		`providers.gw.headers.X-Team = "ci"`,
		`providers.gw.headers.Authorization = "[redacted]"`,
		"prices.claude-opus-5-5.input = 4",
		"built-in model prices not shown",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "attacker") {
		t.Errorf("untrusted workspace base_url shown as used:\n%s", out)
	}
	if !strings.Contains(errOut, "rubichan: ignoring base_url") {
		t.Errorf("stderr lacks the trust note: %q", errOut)
	}
	for _, s := range []string{secretKey, "SECRET"} {
		if strings.Contains(out+errOut, s) {
			t.Errorf("config show printed a secret:\n%s\n%s", out, errOut)
		}
	}
}

func TestConfigShowJSON(t *testing.T) {
	env, ws := configShowFixture(t, "", "base_url = \"https://ws.example/v1\"\n",
		map[string]string{"OPENAI_API_KEY": secretKey})
	code, out, errOut := runCLI(t, env, "", "config", "show", "--json", "--trust-workspace", "-C", ws, "--all")
	if code != exit.OK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if strings.Contains(out, secretKey) {
		t.Fatalf("JSON holds the key:\n%s", out)
	}
	var got config.Show
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	p := got.Provider
	if p == nil || p.Name != "openai" || p.BaseURL != "https://ws.example/v1" || p.APIKey != config.Redacted || p.APIKeyEnv != "OPENAI_API_KEY" {
		t.Fatalf("provider = %+v", p)
	}
	if !strings.HasSuffix(p.BaseURLFrom, ".rubichan/config.toml:1") {
		t.Errorf("base_url_from = %q", p.BaseURLFrom)
	}
	values := map[string]config.ShownValue{}
	for _, v := range got.Values {
		values[v.Key] = v
	}
	if v := values["limits.timeout"]; v.Value != "30m" || v.Origin != "default" {
		t.Errorf("limits.timeout = %+v", v)
	}
	if v := values[`prices."gpt-4.1".input`]; v.Value != 2.0 {
		t.Errorf("--all lacks the gpt-4.1 price: %+v", v)
	}
	if got.Hidden != 0 {
		t.Errorf("hidden = %d with --all", got.Hidden)
	}
}

func TestConfigShowErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		user     string
		vars     map[string]string
		args     []string
		contains []string
		stdout   bool
	}{
		"unknown key": {user: "[limits]\nmax_turn = 3\n", args: []string{"config", "show"},
			contains: []string{"config.toml:2", "limits.max_turn", "unknown key"}},
		"no key at all": {args: []string{"config", "show"}, stdout: true,
			contains: []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY"}},
		"bad env": {vars: map[string]string{"RUBICHAN_MAX_COST": "x"}, args: []string{"config", "show"},
			contains: []string{"RUBICHAN_MAX_COST", "want a number"}},
		"extra words": {args: []string{"config", "show", "now"}, contains: []string{"no arguments"}},
	} {
		t.Run(name, func(t *testing.T) {
			env, ws := configShowFixture(t, tc.user, "", tc.vars)
			code, out, errOut := runCLI(t, env, "", append(tc.args, "-C", ws)...)
			if code != exit.Usage {
				t.Fatalf("exit %d, want %d; stderr %s", code, exit.Usage, errOut)
			}
			for _, s := range tc.contains {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
			// Without a provider the configuration is still shown, so the
			// user can see why.
			if tc.stdout != strings.Contains(out, "limits.max_turns = 50") {
				t.Errorf("stdout shown = %v, want %v:\n%s", !tc.stdout, tc.stdout, out)
			}
		})
	}
}

// TestConfigShowShowsControls: `config show` writes the control characters
// of configuration text (values, file names) visibly, in text and in JSON, and a hook command
// is clipped exactly as the runner's clip does (config.NewShow is given
// the runner's escaping, see [agent.Shown]).
func TestConfigShowShowsControls(t *testing.T) {
	// A TOML file holds no invalid bytes, and a header value no line break.
	h := strings.ToValidUTF8(ptytest.Hostile, "?")
	cmds := []string{h, h + " " + strings.Repeat("x", 100), "\u202e" + strings.Repeat("é", 90) + "\x7f"}
	header := strings.ReplaceAll(h, "\r", "")
	var user strings.Builder
	user.WriteString("[providers.gw]\ntype = \"openai\"\nbase_url = \"https://gw.example/v1\"\nheaders = { \"X-Team\" = " + ptytest.JSONQuote(header) + " }\n")
	for _, c := range cmds {
		// JSON's escapes are TOML's, but for DEL, which JSON leaves raw.
		user.WriteString("[[hooks.stop]]\nname = \"n\"\ncommand = " + strings.ReplaceAll(ptytest.JSONQuote(c), "\x7f", `\u007f`) + "\n")
	}
	// The file's name is hostile too: it is shown in "# read" and in the
	// origins, unquoted.
	file := filepath.Join(t.TempDir(), ptytest.Hostile+".toml")
	if err := os.WriteFile(file, []byte(user.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	env, ws := configShowFixture(t, "", "", map[string]string{"ANTHROPIC_API_KEY": secretKey})
	code, out, errOut := runCLI(t, env, "", "config", "show", "-C", ws, "--config", file)
	if code != exit.OK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if problem := ptytest.EscapedOK(out); problem != "" {
		t.Errorf("text %s:\n%s", problem, ptytest.JSONQuote(out))
	}
	for i, c := range cmds {
		if want := fmt.Sprintf("hooks.stop[%d] = %s", i, strconv.Quote("n: "+agent.Clip(c, 80)+" (timeout 30s)")); !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, env, "", "config", "show", "--json", "-C", ws, "--config", file)
	if code != exit.OK {
		t.Fatalf("--json: exit %d, stderr %s", code, errOut)
	}
	for _, r := range out {
		if r == utf8.RuneError || r != '\n' && r != '\t' && (r < 0x20 || agent.ActsOnTerminal(r)) {
			t.Fatalf("JSON holds %U raw:\n%s", r, ptytest.JSONQuote(out))
		}
	}
	var got config.Show
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var hooks []any
	for _, v := range got.Values {
		if strings.HasPrefix(v.Key, "hooks.stop[") {
			hooks = append(hooks, v.Value)
		}
		if v.Key == "providers.gw.headers.X-Team" && v.Value != header {
			t.Errorf("header = %q, want %q decoded", v.Value, header)
		}
	}
	for i, c := range cmds {
		if want := "n: " + agent.Clip(c, 80) + " (timeout 30s)"; i >= len(hooks) || hooks[i] != want {
			t.Errorf("hooks.stop[%d] = %v, want %q", i, hooks, want)
		}
	}
}
