package config

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Show is the printable effective configuration: the provider in use,
// every value with where it came from, the files read. It is what
// `rubichan config show` prints and what the doctor lists. Its text is
// untrusted (files, keys and values may come from a checkout): it holds
// the caller's escaping of hook commands, and WriteText and WriteJSON
// rely on the caller to show control characters (see [NewShow]).
type Show struct {
	Provider      *PublicProvider `json:"provider"`
	ProviderError string          `json:"provider_error,omitempty"`
	Values        []ShownValue    `json:"values"`
	Files         []string        `json:"files"`
	Notes         []string        `json:"notes,omitempty"`
	Hidden        int             `json:"hidden_prices,omitempty"`
	HiddenWindows int             `json:"hidden_windows,omitempty"`
}

// ShownValue is one key with its value and origin.
type ShownValue struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Origin string `json:"origin"`
}

// NewShow collects the effective configuration of lc with the provider
// rp resolved from it, or perr when none could be; all lists the
// built-in model windows and prices not in use too. escape is the
// caller's rule for showing the control characters of untrusted text
// (the runner's: C0 and C1 controls, DEL, invalid bytes and
// bidirectional overrides written out); hook commands are escaped with
// it before they are clipped, so that the clip counts what is shown.
func NewShow(lc *Loaded, rp ResolvedProvider, perr error, all bool, escape func(string) string) Show {
	s := Show{Files: lc.Files, Notes: lc.Notes}
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
	add([]string{"limits", "parallel_tool_calls"}, l.ParallelToolCalls)
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
	s.addHooks(lc.Hooks, escape)
	for _, name := range slices.Sorted(maps.Keys(lc.Providers)) {
		p := lc.Providers[name]
		// A preset's table may hold structured_output alone: no empty
		// type and base_url for it.
		if p.Type != "" || p.BaseURL != "" {
			add([]string{"providers", name, "type"}, p.Type)
			add([]string{"providers", name, "base_url"}, p.BaseURL)
		}
		if p.StructuredOutput != "" {
			add([]string{"providers", name, "structured_output"}, p.StructuredOutput)
		}
		if p.APIKeyEnv != "" {
			add([]string{"providers", name, "api_key_env"}, p.APIKeyEnv)
		}
		for _, h := range slices.Sorted(maps.Keys(p.Headers)) {
			add([]string{"providers", name, "headers", h}, RedactHeader(h, p.Headers[h]))
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
func (s *Show) add(lc *Loaded, path []string, v any) {
	s.Values = append(s.Values, ShownValue{Key: DisplayKey(path), Value: v, Origin: lc.Origin(path...).String()})
}

// addModels lists the context window and output limit of the model in use
// and of every model a config file or variable sets; --all lists the
// built-in table too, counted in HiddenWindows otherwise.
func (s *Show) addModels(lc *Loaded, model string, all bool) {
	var inUse string
	if model != "" {
		var known bool
		if inUse, known = WindowKey(lc.Models, model); !known {
			w := UnknownWindow()
			s.Values = append(s.Values,
				ShownValue{Key: DisplayKey([]string{"models", model, "context_window"}), Value: w.ContextWindow, Origin: "default (a model not in the table)"},
				ShownValue{Key: DisplayKey([]string{"models", model, "max_output"}), Value: w.MaxOutput, Origin: "default (a model not in the table)"})
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
func (s *Show) addPrices(lc *Loaded, model string, all bool) {
	var inUse string
	if model != "" {
		_, inUse, _ = LookupPrice(lc.Prices, model)
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
func (s *Show) addHooks(h Hooks, escape func(string) string) {
	for _, l := range []struct {
		event string
		hooks []Hook
	}{{"before_tool", h.BeforeTool}, {"after_tool", h.AfterTool}, {"stop", h.Stop}} {
		for i, hk := range l.hooks {
			v := hk.Label() + ": " + clip(hk.Command, 80, escape) + " (timeout " + shortDuration(hk.Timeout)
			if len(hk.Match) > 0 {
				v += ", match " + strings.Join(hk.Match, " ")
			}
			s.Values = append(s.Values, ShownValue{Key: fmt.Sprintf("hooks.%s[%d]", l.event, i), Value: v + ")", Origin: "config files, in order"})
		}
	}
}

// RedactHeader hides the values of headers that usually carry credentials,
// by name, and values that look like one whatever the name: an HTTP
// authorization scheme, a vendor key prefix or a JWT.
func RedactHeader(name, value string) string {
	n := strings.ToLower(name)
	for _, s := range []string{"auth", "key", "token", "secret", "cookie", "pass", "signature", "credential", "access", "session"} {
		if strings.Contains(n, s) {
			return Redacted
		}
	}
	v := strings.ToLower(strings.TrimSpace(value))
	for _, p := range []string{"bearer ", "basic ", "token ", "sk-", "eyj"} {
		if strings.HasPrefix(v, p) {
			return Redacted
		}
	}
	return value
}

// WriteJSON writes s to w as indented JSON. encoding/json escapes C0
// controls but not DEL, C1 controls or bidirectional overrides: w is to
// escape those (the runner passes its JSON-escaping writer).
func (s Show) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("config show: %w", err)
	}
	return nil
}

// WriteText writes s to w as commented TOML-like lines ("key = value  #
// origin"), the whole text passed through escape (see [NewShow]).
func (s Show) WriteText(w io.Writer, escape func(string) string) error {
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
		if p.StructuredOutput != "" {
			line(&b, "structured_output", strconv.Quote(p.StructuredOutput), "")
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
	_, err := io.WriteString(w, escape(b.String()))
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
	case ByteSize:
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

// clip flattens s to one line, escapes it and cuts it to at most max
// runes, ending in … when cut: the runner's clip, with its escaping
// given.
func clip(s string, max int, escape func(string) string) string {
	s = escape(strings.Join(strings.Fields(s), " "))
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-1]) + "…"
}
