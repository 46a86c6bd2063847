package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// markEscape stands in for the runner's escaping: it writes ESC out as
// "<ESC>", so a test sees where the escaping was applied.
func markEscape(s string) string { return strings.ReplaceAll(s, "\x1b", "<ESC>") }

// showFixture loads a user file setting a limit, a gateway provider with
// headers and hooks, with ANTHROPIC_API_KEY set, and resolves the provider.
func showFixture(t *testing.T, user string) (*Loaded, ResolvedProvider, error) {
	t.Helper()
	f := newConfigFixture(t, user, "", "")
	f.env["ANTHROPIC_API_KEY"] = "sk-test-SECRET"
	f.env["RUBICHAN_MAX_TURNS"] = "7"
	lc, err := Load(f.options())
	if err != nil {
		t.Fatal(err)
	}
	rp, perr := lc.ResolveProvider(f.lookup)
	return lc, rp, perr
}

func TestNewShow(t *testing.T) {
	t.Parallel()
	long := "./guard.sh \x1b[2J " + strings.Repeat("x", 100)
	lc, rp, perr := showFixture(t, "[limits]\nmax_cost = 2\n"+
		"[providers.gw]\ntype = \"openai\"\nbase_url = \"https://gw.example/v1\"\n"+
		"headers = { \"X-Team\" = \"ci\", \"Authorization\" = \"Bearer sk-header-SECRET\" }\n"+
		"[[hooks.before_tool]]\ncommand = "+jsonQuote(long)+"\nmatch = [\"write\", \"edit\"]\n"+
		"[[hooks.stop]]\nname = \"lint\"\ncommand = \"make\\n\\tlint\"\ntimeout = \"5m\"\n")
	if perr != nil {
		t.Fatal(perr)
	}
	s := NewShow(lc, rp, perr, false, markEscape)
	if s.Provider == nil || s.Provider.Name != "anthropic" || s.Provider.APIKey != Redacted || s.ProviderError != "" {
		t.Fatalf("provider = %+v, error %q", s.Provider, s.ProviderError)
	}
	got := map[string]ShownValue{}
	for _, v := range s.Values {
		got[v.Key] = v
	}
	// The hook command is escaped, then clipped to 80 runes: the clip
	// counts the escape's "<ESC>".
	hook := "./guard.sh: " + ("./guard.sh <ESC>[2J " + strings.Repeat("x", 100))[:79] + "…" + " (timeout 30s, match write edit)"
	for _, want := range []ShownValue{
		{Key: "limits.max_turns", Value: 7, Origin: "env RUBICHAN_MAX_TURNS"},
		{Key: "limits.timeout", Value: "30m", Origin: "default"},
		{Key: "input.stdin_inline_max", Value: ByteSize(256 << 10), Origin: "default"},
		{Key: "providers.gw.headers.X-Team", Value: "ci"},
		{Key: "providers.gw.headers.Authorization", Value: Redacted},
		{Key: "hooks.before_tool[0]", Value: hook, Origin: "config files, in order"},
		{Key: "hooks.stop[0]", Value: "lint: make lint (timeout 5m)", Origin: "config files, in order"},
	} {
		v, ok := got[want.Key]
		if !ok || v.Value != want.Value || want.Origin != "" && v.Origin != want.Origin {
			t.Errorf("%s = %#v, want %#v", want.Key, v, want)
		}
	}
	if v := got["limits.max_cost"]; v.Value != 2.0 || !strings.HasSuffix(v.Origin, "config.toml:2") {
		t.Errorf("limits.max_cost = %+v", v)
	}
	if _, ok := got["prices.claude-opus-5-5.input"]; s.Hidden == 0 || s.HiddenWindows == 0 || ok {
		t.Errorf("without all: hidden %d prices, %d windows; an unused built-in price listed: %v", s.Hidden, s.HiddenWindows, ok)
	}
	if all := NewShow(lc, rp, perr, true, markEscape); all.Hidden != 0 || all.HiddenWindows != 0 || len(all.Values) <= len(s.Values) {
		t.Errorf("with all: hidden %d prices, %d windows, %d values (%d without)", all.Hidden, all.HiddenWindows, len(all.Values), len(s.Values))
	}
}

func TestNewShowWithoutProvider(t *testing.T) {
	t.Parallel()
	lc, _, _ := showFixture(t, "")
	s := NewShow(lc, ResolvedProvider{}, errors.New("no provider"), false, markEscape)
	if s.Provider != nil || s.ProviderError != "no provider" || len(s.Values) == 0 || s.Files == nil {
		t.Errorf("show = %+v", s)
	}
	var b strings.Builder
	if err := s.WriteText(&b, markEscape); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n# provider in use\n# none: no provider\n") {
		t.Errorf("text lacks the provider error:\n%s", b.String())
	}
}

func TestShowWriteText(t *testing.T) {
	t.Parallel()
	s := Show{
		Provider: &PublicProvider{Name: "gw", Type: "openai", BaseURL: "https://gw.example", BaseURLFrom: "preset gw",
			Model: "m", ModelFrom: "flag --model", APIKey: Redacted, APIKeyEnv: "GW_KEY", Headers: []string{"X-A", "X-B"}},
		Files: []string{"/home/u/config.toml", "/ws/\x1b[2J.toml"},
		Values: []ShownValue{
			{Key: "limits.timeout", Value: "30m", Origin: "default"},
			{Key: "compact_at", Value: 0.8, Origin: "default"},
			{Key: "input.stdin_max", Value: ByteSize(10 << 30), Origin: "default"},
			{Key: "verify.timeout", Value: 90 * time.Minute, Origin: "default"},
			{Key: "a.very.long.key.that.passes.the.comment.column.by.far", Value: true, Origin: "flag"},
		},
		Hidden: 3, HiddenWindows: 2,
	}
	var b bytes.Buffer
	if err := s.WriteText(&b, markEscape); err != nil {
		t.Fatal(err)
	}
	want := `# rubichan configuration; later sources win:
# default < user file < --config < workspace file < RUBICHAN_* < flags
# read /home/u/config.toml
# read /ws/<ESC>[2J.toml

# provider in use
name = "gw"
type = "openai"
base_url = "https://gw.example"                   # preset gw
model = "m"                                       # flag --model
api_key = "[redacted]"                            # env GW_KEY
headers = X-A, X-B

# values
limits.timeout = "30m"                            # default
compact_at = 0.8                                  # default
input.stdin_max = "10GB"                          # default
verify.timeout = "1h30m"                          # default
a.very.long.key.that.passes.the.comment.column.by.far = true  # flag
# 2 built-in model context windows not shown (--all shows them)
# 3 built-in model prices not shown (--all shows them)
`
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestShowWriteJSON(t *testing.T) {
	t.Parallel()
	s := Show{ProviderError: "none", Files: []string{}, Values: []ShownValue{{Key: "k", Value: "v", Origin: "default"}}, Hidden: 1}
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	want := `{
  "provider": null,
  "provider_error": "none",
  "values": [
    {
      "key": "k",
      "value": "v",
      "origin": "default"
    }
  ],
  "files": [],
  "hidden_prices": 1
}
`
	if b.String() != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestShowClip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"make  lint\n\t--fix", 80, "make lint --fix"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"\x1bb", 6, "<ESC>b"},
		{"a\x1bb", 6, "a<ESC…"},
		{"ééééééé", 6, "ééééé…"},
	} {
		if got := clip(tc.in, tc.max, markEscape); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestRedactHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, value, want string }{
		{"Authorization", "v", Redacted}, {"X-Api-Key", "v", Redacted}, {"X-Auth-Token", "v", Redacted},
		{"Cookie", "v", Redacted}, {"X-Team", "v", "v"}, {"X-Title", "v", "v"},
		{"Ocp-Apim-Subscription-Key", "v", Redacted}, {"X-Access", "v", Redacted}, {"X-Session", "v", Redacted},
		// A credential under a name that does not say so.
		{"X-Gateway", "Bearer abc123", Redacted}, {"X-Gateway", "basic dTpw", Redacted},
		{"X-Gateway", "sk-ant-api03-abc", Redacted}, {"X-Gateway", "sk-proj-abc", Redacted},
		{"X-Gateway", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", Redacted},
		{"X-Gateway", "skeleton", "skeleton"},
	} {
		if got := RedactHeader(tc.name, tc.value); got != tc.want {
			t.Errorf("RedactHeader(%s, %s) = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"30m0s": "30m", "1h0m0s": "1h", "1h30m0s": "1h30m", "45s": "45s", "0s": "0s", "1m30s": "1m30s"} {
		d, err := time.ParseDuration(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestShowStructuredOutput: config show prints the provider's
// structured_output when the configuration sets it (README: a
// [providers.anthropic] table holding only that key adjusts the preset),
// in the text and the JSON form; unset, neither shows it.
func TestShowStructuredOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ set, text, json string }{
		{"tool", "\nstructured_output = \"tool\"\n", `"structured_output":"tool"`},
		{"", "", ""},
	} {
		rp := ResolvedProvider{Name: "anthropic", Type: "anthropic", Model: "m", StructuredOutput: tc.set}
		pub := rp.Public()
		s := Show{Provider: &pub, Files: []string{}}
		var text bytes.Buffer
		if err := s.WriteText(&text, func(s string) string { return s }); err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(pub)
		if err != nil {
			t.Fatal(err)
		}
		if tc.set == "" {
			if strings.Contains(text.String(), "structured_output") || strings.Contains(string(js), "structured_output") {
				t.Errorf("unset structured_output shown:\n%s\n%s", text.String(), js)
			}
			continue
		}
		if !strings.Contains(text.String(), tc.text) || !strings.Contains(string(js), tc.json) {
			t.Errorf("structured_output %q not shown:\n%s\n%s", tc.set, text.String(), js)
		}
	}
}

// TestNewShowPresetTable: a [providers.anthropic] table holding only
// structured_output (README: it adjusts the preset) is listed as that key,
// with its file and line, not as an empty type and base_url.
func TestNewShowPresetTable(t *testing.T) {
	t.Parallel()
	lc, rp, perr := showFixture(t, "[providers.anthropic]\nstructured_output = \"tool\"\n")
	if perr != nil {
		t.Fatal(perr)
	}
	got := map[string]ShownValue{}
	for _, v := range NewShow(lc, rp, perr, false, markEscape).Values {
		got[v.Key] = v
	}
	if v := got["providers.anthropic.structured_output"]; v.Value != "tool" || !strings.HasSuffix(v.Origin, "config.toml:2") {
		t.Errorf("providers.anthropic.structured_output = %+v", v)
	}
	for _, k := range []string{"providers.anthropic.type", "providers.anthropic.base_url"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s listed for a preset's table: %+v", k, v)
		}
	}
}
