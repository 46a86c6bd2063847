package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseConfigValid(t *testing.T) {
	t.Parallel()
	const file = `# a user config
provider = "gw"
model    = "my-model"
base_url = "https://proxy.example/v1"

[providers.gw]
type        = "openai"
base_url    = "https://gateway.example/v1"
api_key_env = "GW_KEY"
headers     = { "X-Team" = "ci", "X-Trace" = "on" }

[limits]
max_turns        = 20
timeout          = "1h30m"
max_tokens_total = 500000
max_cost         = 2
max_tool_calls   = 0

[input]
stdin_inline_max = "1MB"

[prices."my-model"]
input  = 1.5
output = 6

[prices."gpt-4.1"]
output = 9.5
`
	got, err := Parse(strings.NewReader(file), "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Provider, want.Model, want.BaseURL = "gw", "my-model", "https://proxy.example/v1"
	want.Providers = map[string]ProviderConfig{"gw": {
		Type: "openai", BaseURL: "https://gateway.example/v1", APIKeyEnv: "GW_KEY",
		Headers: map[string]string{"X-Team": "ci", "X-Trace": "on"},
	}}
	want.Limits = Limits{MaxTurns: 20, Timeout: 90 * time.Minute, MaxTokensTotal: 500000, MaxCost: 2, ParallelToolCalls: 8, StreamIdleTimeout: 5 * time.Minute, StreamHeaderTimeout: time.Minute, MaxResponseSize: 32 << 20}
	want.Input.StdinInlineMax = 1 << 20
	// A new model's cache prices default to its input price.
	want.Prices["my-model"] = Price{Input: 1.5, Output: 6, CacheRead: 1.5, CacheWrite: 1.5}
	// A built-in model keeps the fields the file leaves out.
	p := want.Prices["gpt-4.1"]
	p.Output = 9.5
	want.Prices["gpt-4.1"] = p
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseConfigEmptyIsDefault(t *testing.T) {
	t.Parallel()
	got, err := Parse(strings.NewReader("# nothing\n"), "empty.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, Default()) {
		t.Errorf("empty file = %+v, want the defaults", got)
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		file     string
		key      string
		line     int
		contains string
	}{
		"unknown top key":       {"model = \"m\"\nmodle = \"x\"\n", "modle", 2, "unknown key"},
		"unknown limits key":    {"[limits]\nmax_turns = 3\nmax_turn = 3\n", "limits.max_turn", 3, "known keys here: max_turns"},
		"unknown table":         {"\n[limit]\nmax_turns = 3\n", "limit", 2, "unknown key"},
		"unknown provider key":  {"[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\nkey = \"x\"\n", "providers.gw.key", 4, "unknown key"},
		"unknown price key":     {"[prices.\"gpt-4.1\"]\ninput = 1\noutput = 2\ncached = 3\n", `prices."gpt-4.1".cached`, 4, "unknown key"},
		"dotted unknown key":    {"limits.max_turnz = 4\n", "limits.max_turnz", 1, "unknown key"},
		"inline unknown key":    {"limits = { max_turns = 4, nope = 1 }\n", "limits.nope", 1, "unknown key"},
		"turns as string":       {"[limits]\nmax_turns = \"50\"\n", "limits.max_turns", 2, "want a whole number"},
		"turns negative":        {"[limits]\nmax_turns = -1\n", "limits.max_turns", 2, "must be at least 1, got -1"},
		"turns zero":            {"[limits]\nmax_turns = 0\n", "limits.max_turns", 2, "must be at least 1, got 0"},
		"turns float":           {"[limits]\nmax_turns = 1.5\n", "limits.max_turns", 2, "want a whole number"},
		"cost negative":         {"[limits]\nmax_cost = -0.5\n", "limits.max_cost", 2, "US dollars >= 0"},
		"cost string":           {"[limits]\nmax_cost = \"1\"\n", "limits.max_cost", 2, "want a number"},
		"cost nan":              {"[limits]\nmax_cost = nan\n", "limits.max_cost", 2, "US dollars >= 0"},
		"timeout no unit":       {"[limits]\ntimeout = 30\n", "limits.timeout", 2, "with a unit"},
		"timeout bad":           {"[limits]\ntimeout = \"soon\"\n", "limits.timeout", 2, "want a duration"},
		"timeout negative":      {"[limits]\ntimeout = \"-5m\"\n", "limits.timeout", 2, "must not be negative"},
		"size bad":              {"[input]\nstdin_inline_max = \"big\"\n", "input.stdin_inline_max", 2, "size"},
		"size zero":             {"[input]\nstdin_inline_max = \"0KB\"\n", "input.stdin_inline_max", 2, "at least 1B"},
		"size negative":         {"[input]\nstdin_inline_max = -4\n", "input.stdin_inline_max", 2, "at least 1B"},
		"limits not a table":    {"limits = 3\n", "limits", 1, "want a table"},
		"model empty":           {"model = \"\"\n", "model", 1, "must not be empty"},
		"model number":          {"model = 4\n", "model", 1, "want a string"},
		"provider bad name":     {"provider = \"a b\"\n", "provider", 1, "may only hold"},
		"base url scheme":       {"base_url = \"ftp://h/v1\"\n", "base_url", 1, "http:// or https://"},
		"base url no host":      {"base_url = \"https:///v1\"\n", "base_url", 1, "no host"},
		"base url credentials":  {"base_url = \"https://user:sk-secret@h/v1\"\n", "base_url", 1, "must not hold credentials"},
		"base url query":        {"base_url = \"https://h/v1?key=sk-secret\"\n", "base_url", 1, "must not have a query"},
		"base url fragment":     {"base_url = \"https://h/v1#sk-secret\"\n", "base_url", 1, "must not have a query"},
		"base url bad scheme":   {"base_url = \"ftp://u:sk-secret@h/\"\n", "base_url", 1, "http:// or https://"},
		"base url unparsable":   {"base_url = \"https://u:sk-secret%zz@h/\"\n", "base_url", 1, "not a URL"},
		"key in api_key_env":    {"[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\napi_key_env = \"sk-secret\"\n", "providers.gw.api_key_env", 4, "not an environment variable name"},
		"headers as string":     {"[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\nheaders = \"Authorization: sk-secret\"\n", "providers.gw.headers", 4, "want a table, got a string"},
		"provider type":         {"[providers.gw]\ntype = \"gemini\"\nbase_url = \"http://h\"\n", "providers.gw.type", 2, `want "openai" or "anthropic"`},
		"provider wire":         {"[providers.gw]\ntype = \"openai\"\nwire = \"completions\"\nbase_url = \"http://h\"\n", "providers.gw.wire", 3, `want "chat" or "responses"`},
		"structured output":     {"[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\nstructured_output = \"json\"\n", "providers.gw.structured_output", 4, `want "native" or "tool"`},
		"preset structured":     {"[providers.openai]\nstructured_output = \"always\"\n", "providers.openai.structured_output", 2, `want "native" or "tool"`},
		"preset with more keys": {"[providers.openai]\nstructured_output = \"tool\"\nbase_url = \"http://h\"\n", "providers.openai", 1, "built-in preset"},
		"provider key env":      {"[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\napi_key_env = \"1KEY\"\n", "providers.gw.api_key_env", 4, "not an environment variable name"},
		"header name":           {"[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\nheaders = { \"X Team\" = \"a\" }\n", `providers.gw.headers."X Team"`, 4, "not a valid HTTP header name"},
		"header value":          {"[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\nheaders = { \"X-A\" = \"a\\r\\nX-B: b\" }\n", "providers.gw.headers.X-A", 4, "line breaks"},
		"provider shadows":      {"[providers.openai]\ntype = \"openai\"\nbase_url = \"http://h\"\n", "providers.openai", 1, "built-in preset"},
		"provider missing type": {"\n[providers.gw]\nbase_url = \"http://h\"\n", "providers.gw.type", 2, "needs type and base_url"},
		"provider missing url":  {"[providers.gw]\ntype = \"anthropic\"\n", "providers.gw.base_url", 1, "needs type and base_url"},
		"new price no output":   {"[prices.mine]\ninput = 1\n", "prices.mine.output", 1, "needs both input and output"},
		"syntax error":          {"model = \"m\"\n[limits\n", "", 2, "toml:"},
		"duplicate key":         {"model = \"a\"\nmodel = \"b\"\n", "", 2, "toml:"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(strings.NewReader(tc.file), "/etc/x/config.toml")
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v (%T), want a *Error", err, err)
			}
			if ce.File != "/etc/x/config.toml" || ce.Line != tc.line || (tc.key != "" && ce.Key != tc.key) {
				t.Errorf("error at %s:%d key %q, want line %d key %q (%v)", ce.File, ce.Line, ce.Key, tc.line, tc.key, err)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not mention %q", err, tc.contains)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("error %q repeats a credential", err)
			}
		})
	}
}

func TestParseConfigReportsTheFirstProblemInTheFile(t *testing.T) {
	t.Parallel()
	// Both keys are bad; timeout comes first in the file (not in the
	// alphabet), and is reported on every run, whatever the map order.
	const file = "[limits]\ntimeout = 3\nmax_turns = -1\n[input]\nstdin_inline_max = \"x\"\n"
	for range 20 {
		_, err := Parse(strings.NewReader(file), "c.toml")
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "limits.timeout" || ce.Line != 2 {
			t.Fatalf("error = %v, want limits.timeout on line 2", err)
		}
	}
}

func TestParseConfigUnknownKeyIsErrUnknownKey(t *testing.T) {
	t.Parallel()
	_, err := Parse(strings.NewReader("[limits]\nmax_turn = 1\n"), "c.toml")
	if !errors.Is(err, ErrUnknownKey) {
		t.Errorf("error = %v, want it to wrap ErrUnknownKey", err)
	}
	const want = "config: c.toml:2: limits.max_turn: unknown key (known keys here: max_turns, timeout, max_tokens_total, max_cost, max_tool_calls, parallel_tool_calls, stream_idle_timeout, stream_header_timeout, max_response_size)"
	if err.Error() != want {
		t.Errorf("error text\n%s\nwant\n%s", err, want)
	}
}

func TestParseConfigTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("# padding\n", maxConfigSize/10+1)
	_, err := Parse(strings.NewReader(big), "big.toml")
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("error = %v, want a size error", err)
	}
}

func TestDisplayKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path []string
		want string
	}{
		{[]string{"limits", "max_cost"}, "limits.max_cost"},
		{[]string{"prices", "gpt-4.1", "input"}, `prices."gpt-4.1".input`},
		{[]string{"prices", "anthropic/claude-sonnet-5.5"}, `prices."anthropic/claude-sonnet-5.5"`},
		{[]string{"providers", "gw", "headers", "X-Team"}, "providers.gw.headers.X-Team"},
		{[]string{""}, `""`},
	} {
		if got := DisplayKey(tc.path); got != tc.want {
			t.Errorf("DisplayKey(%q) = %s, want %s", tc.path, got, tc.want)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"model = \"m\"\n[limits]\nmax_cost = 1.5\n",
		"[providers.gw]\ntype = \"openai\"\nbase_url = \"http://h\"\nheaders = { A = \"b\" }\n",
		"[prices.\"x.y\"]\ninput = 1\noutput = 2\n",
		"limits = { timeout = \"5m\" }\n",
		"[input]\nstdin_inline_max = 12\n",
		"[[limits]]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := Parse(strings.NewReader(s), "fuzz.toml")
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not a *Error", err, err)
			}
			if ce.File != "fuzz.toml" {
				t.Fatalf("error names file %q", ce.File)
			}
			return
		}
		if cfg.Limits.MaxTurns < 0 || cfg.Limits.Timeout < 0 || cfg.Limits.MaxCost < 0 || cfg.Input.StdinInlineMax < 0 {
			t.Fatalf("negative limit accepted: %+v", cfg.Limits)
		}
		for name, p := range cfg.Providers {
			if p.Type != ProviderOpenAI && p.Type != ProviderAnthropic || p.BaseURL == "" {
				t.Fatalf("provider %q accepted incomplete: %+v", name, p)
			}
		}
	})
}

func BenchmarkParseConfig(b *testing.B) {
	const file = `provider = "gw"
model = "m"
[providers.gw]
type = "openai"
base_url = "https://gateway.example/v1"
api_key_env = "GW_KEY"
headers = { "X-Team" = "ci" }
[limits]
max_turns = 20
timeout = "10m"
max_cost = 2
[prices."m"]
input = 1
output = 2
`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(file), "c.toml"); err != nil {
			b.Fatal(err)
		}
	}
}
