package run

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rubichan/rubichan/run/config"
	"github.com/urfave/cli/v2"
)

// configFlags are the flags that set configuration keys, shared by exec and
// `config show`. They carry no EnvVars: [config.Load] reads the RUBICHAN_*
// variables itself, so that a variable ranks below flags and above the
// workspace file, and `config show` can say which one set a value.
func configFlags() []cli.Flag {
	const (
		model  = "Model"
		limits = "Limits"
		input  = "Input"
		verify = "Verify"
		shell  = "Sandbox"
	)
	return []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "read this config `FILE` after the user file [$RUBICHAN_CONFIG]", Category: model, TakesFile: true},
		&cli.StringFlag{Name: "provider", Usage: "provider `NAME`: anthropic, openai, openrouter, groq, deepseek, gemini, ollama or a [providers.NAME] entry (default: the configured one, else the first whose key variable is set) [$RUBICHAN_PROVIDER]", Category: model},
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME` (default: the provider's default model) [$RUBICHAN_MODEL]", Category: model},
		&cli.StringFlag{Name: "base-url", Usage: "API base `URL`, replacing the provider's [$RUBICHAN_BASE_URL]", Category: model},
		&cli.StringFlag{Name: "max-cost", Usage: "stop (exit 4) before the spend in `USD` would pass this; 0 for none [$RUBICHAN_MAX_COST]", Category: limits},
		&cli.StringFlag{Name: "max-tokens-total", Usage: "stop (exit 4) before the tokens used would pass `N`; 0 for none [$RUBICHAN_MAX_TOKENS_TOTAL]", Category: limits},
		&cli.StringFlag{Name: "max-turns", Usage: "stop (exit 4) after `N` model requests (default: 50) [$RUBICHAN_MAX_TURNS]", Category: limits},
		&cli.StringFlag{Name: "timeout", Usage: "stop (exit 4) after this wall-clock `DURATION`, 0 for none (default: 30m) [$RUBICHAN_TIMEOUT]", Category: limits},
		&cli.StringFlag{Name: "max-tool-calls", Usage: "stop (exit 4) after `N` tool calls; 0 for none [$RUBICHAN_MAX_TOOL_CALLS]", Category: limits},
		&cli.StringFlag{Name: "stream-idle-timeout", Usage: "cut and retry a model request that makes no progress for this `DURATION` (pings do not count); 0 for none (default: 5m) [$RUBICHAN_STREAM_IDLE_TIMEOUT]", Category: limits},
		&cli.StringFlag{Name: "stream-header-timeout", Usage: "cut and retry a model request whose response headers have not come within this `DURATION`; 0 for none (default: 1m) [$RUBICHAN_STREAM_HEADER_TIMEOUT]", Category: limits},
		&cli.StringFlag{Name: "max-response-size", Usage: "fail (exit 5) when one model answer's text, thinking and tool input pass `SIZE` (default: 32MB) [$RUBICHAN_MAX_RESPONSE_SIZE]", Category: limits},
		&cli.StringFlag{Name: "stdin-max", Usage: "stop (exit 2) when stdin passes `SIZE`; never more than the spill directory's free space less a margin (default: 10GB) [$RUBICHAN_STDIN_MAX]", Category: input},
		&cli.StringFlag{Name: "sandbox", Usage: "OS sandbox of shell commands: `MODE` is auto (what the kernel supports), required (exit 2 when the kernel cannot) or off (default: auto) [$RUBICHAN_SANDBOX]", Category: shell},
		&cli.BoolFlag{Name: "network", Usage: "let shell commands open network connections (the sandbox blocks TCP otherwise) [$RUBICHAN_NETWORK]", Category: shell},
		&cli.StringFlag{Name: "compact-at", Usage: "compact the conversation when a request would pass this `RATIO` of the context window minus the output reserve (default: 0.8) [$RUBICHAN_COMPACT_AT]", Category: "Context window"},
		&cli.StringFlag{Name: "verify", Usage: "after the model's final answer run `CMD` in the workspace (outside the policy); until it exits 0 the model is shown its output and goes on [$RUBICHAN_VERIFY]", Category: verify},
		&cli.StringFlag{Name: "verify-attempts", Usage: "end the run with exit 6 after `N` failed checks (default: 3) [$RUBICHAN_VERIFY_ATTEMPTS]", Category: verify},
		&cli.StringFlag{Name: "verify-timeout", Usage: "stop one check after `DURATION` (default: 10m) [$RUBICHAN_VERIFY_TIMEOUT]", Category: verify},
		&cli.StringFlag{Name: "sub-model", Usage: "model `NAME` of sub-queries (`rubichan query` in the run's commands; default: the provider's cheaper model, see docs/subqueries.md) [$RUBICHAN_SUB_MODEL]", Category: "Sub-queries"},
		&cli.StringFlag{Name: "query-concurrency", Usage: "at most `N` sub-queries in flight across the run (default: 4) [$RUBICHAN_QUERY_CONCURRENCY]", Category: "Sub-queries"},
		&cli.StringFlag{Name: "max-queries", Usage: "refuse sub-queries past `N` and stop (exit 4); 0 for none (default: 500) [$RUBICHAN_MAX_QUERIES]", Category: "Sub-queries"},
		&cli.StringFlag{Name: "stdin-inline-max", Usage: "largest stdin (`SIZE`: B, KB, MB, GB) put into the prompt; more is spilled to a file (default: 256KB) [$RUBICHAN_STDIN_INLINE_MAX]", Category: input},
	}
}

// configOptionsFromCLI collects the configuration flags set on the command
// line of c. workspace is the absolute workspace root; trusted says whether
// the workspace file may redirect the provider (line mode or
// --trust-workspace).
func configOptionsFromCLI(c *cli.Context, env environment, workspace string, trusted bool) config.Options {
	given := givenFlags(c)
	flags := map[string]string{}
	for _, name := range config.FlagNames() {
		if given[name] {
			flags[name] = fmt.Sprint(c.Value(name))
		}
	}
	home, _ := env.lookupEnv("HOME")
	return config.Options{
		LookupEnv:      env.lookupEnv,
		Home:           home,
		Workspace:      workspace,
		ConfigFile:     c.String("config"),
		Flags:          flags,
		TrustWorkspace: trusted,
	}
}

// givenFlags returns the names of the flags given on c's command line
// (or through their EnvVars), in one pass; urfave/cli marks every name of
// a flag given by one of them. (cli.Context.IsSet of a flag not given
// searches every flag's names with a regexp: asked of each configuration
// flag in turn, that was a tenth of the chat's start-up.)
func givenFlags(c *cli.Context) map[string]bool {
	given := map[string]bool{}
	for _, name := range c.LocalFlagNames() {
		given[name] = true
	}
	return given
}

// configCommand is `rubichan config show`.
func configCommand(env environment) *cli.Command {
	return &cli.Command{
		Name:            "config",
		Usage:           "inspect the configuration",
		HideHelpCommand: true,
		// Like `rubichan policy`: without a known subcommand there is
		// nothing to do, which is a usage error, not help on stdout.
		Action: requireSubcommand("config", "; try: rubichan config show"),
		Subcommands: []*cli.Command{{
			Name:      "show",
			Usage:     "print the effective configuration and where each value came from (API keys redacted)",
			UsageText: "rubichan config show [--json] [--all] [--trust-workspace] [-C DIR] [exec's model, limit and input flags]",
			Description: `Loads the configuration exactly as exec would in the same directory
(defaults < user file < --config < workspace file < RUBICHAN_* < flags, and
the workspace trust rule) and prints every value with where it came from.
API keys and credential headers are shown as "[redacted]".

Examples:
   rubichan config show
   rubichan config show --json | jq -r .provider.model
   rubichan config show --provider openai --max-cost 2 -C services/api
   rubichan config show --all      # with every built-in model price

Exit codes: 0 printed, 2 the configuration is invalid or names no usable
provider (what could be loaded is still printed).`,
			Flags: append(configFlags(),
				&cli.BoolFlag{Name: "json", Usage: "print JSON"},
				&cli.BoolFlag{Name: "all", Usage: "also list the built-in prices of models not in use"},
				&cli.BoolFlag{Name: "trust-workspace", Usage: "show what a run with --trust-workspace would use", EnvVars: envs("trust-workspace")},
				&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
			),
			Action: func(c *cli.Context) error {
				lc, err := loadCommandConfig(c, env, "config show")
				if err != nil {
					return err
				}
				note := noteTo(c.App.ErrWriter, "rubichan: ")
				for _, n := range lc.Notes {
					note(n)
				}
				rp, perr := resolveProvider(lc, env.lookupEnv)
				show := newConfigShow(lc, rp, perr, c.Bool("all"))
				if c.Bool("json") {
					err = show.writeJSON(c.App.Writer)
				} else {
					err = show.writeText(c.App.Writer)
				}
				if err != nil {
					return err
				}
				return perr
			},
		}},
	}
}

// configShow is the printable effective configuration.
type configShow struct {
	Provider      *config.PublicProvider `json:"provider"`
	ProviderError string                 `json:"provider_error,omitempty"`
	Values        []shownValue           `json:"values"`
	Files         []string               `json:"files"`
	Notes         []string               `json:"notes,omitempty"`
	Hidden        int                    `json:"hidden_prices,omitempty"`
	HiddenWindows int                    `json:"hidden_windows,omitempty"`
}

// shownValue is one key with its value and origin.
type shownValue struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Origin string `json:"origin"`
}

func newConfigShow(lc *config.Loaded, rp config.ResolvedProvider, perr error, all bool) configShow {
	s := configShow{Files: lc.Files, Notes: lc.Notes}
	if s.Files == nil {
		s.Files = []string{}
	}
	if perr == nil {
		pub := rp.Public()
		s.Provider = &pub
	} else {
		s.ProviderError = perr.Error()
	}
	add := func(path []string, v any) { s.add(lc, path, v) }
	for _, k := range []struct {
		key string
		v   string
	}{{"provider", lc.Provider}, {"model", lc.Model}, {"base_url", lc.BaseURL}} {
		if k.v != "" {
			add([]string{k.key}, k.v)
		}
	}
	l := lc.Limits
	add([]string{"limits", "max_turns"}, l.MaxTurns)
	add([]string{"limits", "timeout"}, shortDuration(l.Timeout))
	add([]string{"limits", "max_tokens_total"}, l.MaxTokensTotal)
	add([]string{"limits", "max_cost"}, l.MaxCost)
	add([]string{"limits", "max_tool_calls"}, l.MaxToolCalls)
	add([]string{"limits", "stream_idle_timeout"}, shortDuration(l.StreamIdleTimeout))
	add([]string{"limits", "stream_header_timeout"}, shortDuration(l.StreamHeaderTimeout))
	add([]string{"limits", "max_response_size"}, l.MaxResponseSize)
	add([]string{"compact_at"}, lc.CompactAt)
	add([]string{"input", "stdin_inline_max"}, lc.Input.StdinInlineMax)
	add([]string{"input", "stdin_max"}, lc.Input.StdinMax)
	if lc.Verify.Command != "" {
		add([]string{"verify", "command"}, lc.Verify.Command)
	}
	add([]string{"verify", "attempts"}, lc.Verify.Attempts)
	add([]string{"verify", "timeout"}, shortDuration(lc.Verify.Timeout))
	if len(lc.Bash.PathAdd) > 0 {
		add([]string{"bash", "path_add"}, strings.Join(lc.Bash.PathAdd, ", "))
	}
	// Shown when set, so that the defaults do not lengthen every listing.
	if lc.Origin("shell", "sandbox").Source != "default" {
		add([]string{"shell", "sandbox"}, lc.Shell.Sandbox)
	}
	if lc.Origin("shell", "network").Source != "default" {
		add([]string{"shell", "network"}, lc.Shell.Network)
	}
	if len(lc.Shell.WritableRoots) > 0 {
		add([]string{"shell", "writable_roots"}, strings.Join(lc.Shell.WritableRoots, ", "))
	}
	addHooks(&s, lc.Hooks)
	for _, name := range slices.Sorted(maps.Keys(lc.Providers)) {
		p := lc.Providers[name]
		add([]string{"providers", name, "type"}, p.Type)
		add([]string{"providers", name, "base_url"}, p.BaseURL)
		if p.APIKeyEnv != "" {
			add([]string{"providers", name, "api_key_env"}, p.APIKeyEnv)
		}
		for _, h := range slices.Sorted(maps.Keys(p.Headers)) {
			add([]string{"providers", name, "headers", h}, redactHeader(h, p.Headers[h]))
		}
	}
	var model string
	if perr == nil {
		model = rp.Model
	}
	s.addModels(lc, model, all)
	s.addPrices(lc, model, all)
	return s
}

// add appends the value at path with its origin.
func (s *configShow) add(lc *config.Loaded, path []string, v any) {
	s.Values = append(s.Values, shownValue{Key: config.DisplayKey(path), Value: v, Origin: lc.Origin(path...).String()})
}

// addModels lists the context window and output limit of the model in use
// and of every model a config file or variable sets; --all lists the
// built-in table too, counted in HiddenWindows otherwise.
func (s *configShow) addModels(lc *config.Loaded, model string, all bool) {
	var inUse string
	if model != "" {
		var known bool
		if inUse, known = config.WindowKey(lc.Models, model); !known {
			w := config.UnknownWindow()
			s.Values = append(s.Values,
				shownValue{Key: config.DisplayKey([]string{"models", model, "context_window"}), Value: w.ContextWindow, Origin: "default (a model not in the table)"},
				shownValue{Key: config.DisplayKey([]string{"models", model, "max_output"}), Value: w.MaxOutput, Origin: "default (a model not in the table)"})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(lc.Models)) {
		if !all && name != inUse && lc.Origin("models", name, "context_window").Source == "default" &&
			lc.Origin("models", name, "max_output").Source == "default" {
			s.HiddenWindows++
			continue
		}
		w := lc.Models[name]
		s.add(lc, []string{"models", name, "context_window"}, w.ContextWindow)
		s.add(lc, []string{"models", name, "max_output"}, w.MaxOutput)
	}
}

// addPrices lists the price of the model in use and of every model a
// config file sets; --all lists the built-in table too.
func (s *configShow) addPrices(lc *config.Loaded, model string, all bool) {
	var inUse string
	if model != "" {
		_, inUse, _ = config.LookupPrice(lc.Prices, model)
	}
	for _, name := range slices.Sorted(maps.Keys(lc.Prices)) {
		if !all && name != inUse && lc.Origin("prices", name, "input").Source == "default" {
			s.Hidden++
			continue
		}
		p := lc.Prices[name]
		s.add(lc, []string{"prices", name, "input"}, p.Input)
		s.add(lc, []string{"prices", name, "output"}, p.Output)
		s.add(lc, []string{"prices", name, "cache_read"}, p.CacheRead)
		s.add(lc, []string{"prices", name, "cache_write"}, p.CacheWrite)
	}
}

// addHooks lists the hooks, one value each: the hook lists add up across
// files, so no single origin is shown.
func addHooks(s *configShow, h config.Hooks) {
	for _, l := range []struct {
		event string
		hooks []config.Hook
	}{{"before_tool", h.BeforeTool}, {"after_tool", h.AfterTool}, {"stop", h.Stop}} {
		for i, hk := range l.hooks {
			v := hk.Label() + ": " + clip(hk.Command, 80) + " (timeout " + shortDuration(hk.Timeout)
			if len(hk.Match) > 0 {
				v += ", match " + strings.Join(hk.Match, " ")
			}
			s.Values = append(s.Values, shownValue{Key: fmt.Sprintf("hooks.%s[%d]", l.event, i), Value: v + ")", Origin: "config files, in order"})
		}
	}
}

// redactHeader hides the values of headers that usually carry credentials,
// by name, and values that look like one whatever the name: an HTTP
// authorization scheme, a vendor key prefix or a JWT.
func redactHeader(name, value string) string {
	n := strings.ToLower(name)
	for _, s := range []string{"auth", "key", "token", "secret", "cookie", "pass", "signature", "credential", "access", "session"} {
		if strings.Contains(n, s) {
			return config.Redacted
		}
	}
	v := strings.ToLower(strings.TrimSpace(value))
	for _, p := range []string{"bearer ", "basic ", "token ", "sk-", "eyj"} {
		if strings.HasPrefix(v, p) {
			return config.Redacted
		}
	}
	return value
}

func (s configShow) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(newJSONShown(w))
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("config show: %w", err)
	}
	return nil
}

func (s configShow) writeText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# rubichan configuration; later sources win:\n")
	b.WriteString("# default < user file < --config < workspace file < RUBICHAN_* < flags\n")
	for _, f := range s.Files {
		fmt.Fprintf(&b, "# read %s\n", f)
	}
	b.WriteString("\n# provider in use\n")
	if p := s.Provider; p != nil {
		line(&b, "name", strconv.Quote(p.Name), p.Chosen)
		line(&b, "type", strconv.Quote(p.Type), "")
		line(&b, "base_url", strconv.Quote(p.BaseURL), p.BaseURLFrom)
		line(&b, "model", strconv.Quote(p.Model), p.ModelFrom)
		keyFrom := ""
		if p.APIKeyEnv != "" {
			keyFrom = "env " + p.APIKeyEnv
		}
		line(&b, "api_key", strconv.Quote(p.APIKey), keyFrom)
		if len(p.Headers) > 0 {
			line(&b, "headers", strings.Join(p.Headers, ", "), "")
		}
	} else {
		fmt.Fprintf(&b, "# none: %s\n", s.ProviderError)
	}
	b.WriteString("\n# values\n")
	for _, v := range s.Values {
		line(&b, v.Key, textValue(v.Value), v.Origin)
	}
	if s.HiddenWindows > 0 {
		fmt.Fprintf(&b, "# %d built-in model context windows not shown (--all shows them)\n", s.HiddenWindows)
	}
	if s.Hidden > 0 {
		fmt.Fprintf(&b, "# %d built-in model prices not shown (--all shows them)\n", s.Hidden)
	}
	// Files, keys and values may come from a checkout's configuration:
	// their control characters are shown.
	_, err := io.WriteString(w, shown(b.String()))
	if err != nil {
		return fmt.Errorf("config show: %w", err)
	}
	return nil
}

// line writes "key = value  # origin" with the comments aligned.
func line(b *strings.Builder, key, value, origin string) {
	s := key + " = " + value
	if origin != "" {
		if pad := 48 - len(s); pad > 0 {
			s += strings.Repeat(" ", pad)
		}
		s += "  # " + origin
	}
	b.WriteString(s + "\n")
}

// textValue writes a value the way TOML would.
func textValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case time.Duration:
		return strconv.Quote(shortDuration(x))
	case config.ByteSize:
		return strconv.Quote(x.String())
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// shortDuration drops the zero units time.Duration.String adds ("30m0s" →
// "30m").
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// loadCommandConfig loads the configuration as exec would for a command
// that takes no arguments (`config show`, `sandbox check`): in the
// workspace of -C (default the current directory), under the trust rule of
// --trust-workspace.
func loadCommandConfig(c *cli.Context, env environment, name string) (*config.Loaded, error) {
	if c.NArg() > 0 {
		return nil, usagef("%s takes no arguments", name)
	}
	dir := c.String("cwd")
	if dir == "" {
		dir = "."
	}
	ws, err := filepath.Abs(dir)
	if err != nil {
		return nil, usagef("workspace %s: %v", dir, err)
	}
	return loadConfig(configOptionsFromCLI(c, env, ws, c.Bool("trust-workspace")))
}
