package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/confmap"
	env "github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	gotoml "github.com/pelletier/go-toml/v2"

	"github.com/rubichan/rubichan/policy/tomlpos"
)

// pathSep joins key parts in origin maps and is koanf's key delimiter.
// TOML keys can hold dots and slashes (model names such as "gpt-4.1",
// "openai/gpt-oss-120b"), so neither can be the delimiter; a unit
// separator cannot appear in a model name (checkModelName refuses control
// characters) nor in any other key the schema accepts.
const pathSep = "\x1f"

// layer is one source of configuration: its own koanf instance, loaded by
// that source's koanf provider, holding normalized values (nested maps of
// string, int64, float64, time.Duration and ByteSize). Each provider's
// values are checked against the schema as koanf merges them into the
// layer (a merge function), so a bad value never reaches the layer.
type layer struct {
	ko *koanf.Koanf
	// paths holds every path the layer sets, tables included, joined with
	// pathSep: koanf's own key map lists only the leaves.
	paths map[string]bool
	// origin says where the value at a path of this layer came from.
	origin func(path []string) Origin
}

func newLayer(origin func([]string) Origin) *layer {
	return &layer{ko: koanf.New(pathSep), paths: map[string]bool{}, origin: origin}
}

// keep merges normalized values into the layer and records their paths.
// It is the end of every layer's merge function.
func (l *layer) keep(values, dest map[string]any) {
	walkValues(nil, values, func(path []string, _ any) {
		l.paths[strings.Join(path, pathSep)] = true
	})
	for k, v := range values {
		dest[k] = v
	}
}

// defaultsLayer holds the built-in defaults but the price table (see
// [stack]), loaded with koanf's confmap provider.
func defaultsLayer() *layer {
	l := newLayer(func([]string) Origin { return Origin{Source: "default"} })
	values := defaultValues()
	// Loading a confmap of well-formed values cannot fail.
	_ = l.ko.Load(confmap.Provider(values, ""), nil, koanf.WithMergeFunc(func(src, dest map[string]any) error {
		l.keep(src, dest)
		return nil
	}))
	return l
}

// fileLayer parses a TOML file's contents with koanf's TOML parser and
// checks them against the schema; filter, when set, removes what the trust
// rule drops after the values are checked. koanf's file provider is not
// used: it reads with os.ReadFile, with no cap on the size and no check
// that the file is a regular one, and a workspace file comes from the
// checkout (see openConfigFile); the bytes come from rawbytes instead.
func fileLayer(data []byte, file string, filter func(map[string]any)) (*layer, error) {
	lines := tomlpos.Index(data)
	l := newLayer(func(path []string) Origin { return Origin{Source: file, Line: lines.Nearest(path...)} })
	n := normalizer{file: file, lines: lines}
	err := l.ko.Load(rawbytes.Provider(data), toml.Parser(), koanf.WithMergeFunc(func(src, dest map[string]any) error {
		v, err := n.value(nil, src, configSchema())
		if err != nil {
			return err
		}
		values := v.(map[string]any)
		if filter != nil {
			filter(values)
		}
		l.keep(values, dest)
		return nil
	}))
	var ce *Error
	if err != nil && !errors.As(err, &ce) {
		ce = &Error{File: file, Err: err}
		var de *gotoml.DecodeError
		if errors.As(err, &de) {
			ce.Line, _ = de.Position()
			ce.Key = strings.Join(de.Key(), ".")
		}
	}
	if ce != nil {
		return nil, ce
	}
	return l, nil
}

// envLayer loads the RUBICHAN_* variables that set configuration keys and
// are not empty, with koanf's env provider; its key transform maps each
// variable to its key path. lookupEnv stands in for the process
// environment, which Load never reads.
func envLayer(lookupEnv func(string) (string, bool)) (*layer, error) {
	byName := map[string][]string{}
	var environ []string
	for _, set := range configSettings() {
		name := EnvName(set.flag)
		byName[name] = set.path
		if v, ok := lookupEnv(name); ok {
			environ = append(environ, name+"="+v)
		}
	}
	l := newLayer(func(path []string) Origin {
		for name, p := range byName {
			if strings.Join(p, pathSep) == strings.Join(path, pathSep) {
				return Origin{Source: "env " + name}
			}
		}
		return Origin{}
	})
	p := env.Provider(pathSep, env.Opt{
		Prefix:      "RUBICHAN_",
		EnvironFunc: func() []string { return environ },
		TransformFunc: func(k, v string) (string, any) {
			if v == "" {
				return "", nil // empty counts as unset
			}
			return strings.Join(byName[k], pathSep), v
		},
	})
	err := l.ko.Load(p, nil, koanf.WithMergeFunc(func(src, dest map[string]any) error {
		return l.keepText(src, dest, "environment", func(s configSetting) string { return EnvName(s.flag) })
	}))
	return l, err
}

// flagLayer loads the configuration flags set on the command line, by flag
// name, with koanf's confmap provider. koanf's cliflagv2 provider is not
// used: run/config depends on no command-line library (exec and `config
// show` hand in the flags the user set, see [Options.Flags]), and that
// provider is not published where this module's dependencies come from.
func flagLayer(flags map[string]string) (*layer, error) {
	known := map[string]bool{}
	values := map[string]any{}
	for _, set := range configSettings() {
		known[set.flag] = true
		if v, ok := flags[set.flag]; ok {
			values[strings.Join(set.path, pathSep)] = v
		}
	}
	l := newLayer(func(path []string) Origin {
		for _, set := range configSettings() {
			if strings.Join(set.path, pathSep) == strings.Join(path, pathSep) {
				return Origin{Source: "flag --" + set.flag}
			}
		}
		return Origin{}
	})
	err := l.ko.Load(confmap.Provider(values, pathSep), nil, koanf.WithMergeFunc(func(src, dest map[string]any) error {
		return l.keepText(src, dest, FromCommandLine, func(s configSetting) string { return "--" + s.flag })
	}))
	if err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(flags) {
		if !known[name] {
			return nil, fmt.Errorf("config: --%s is not a configuration flag", name)
		}
	}
	return l, nil
}

// keepText parses the text of each setting's variable or flag in src (a
// nested map of strings) for its key, in the order of [configSettings], and
// keeps the values. An error names file ("environment" or "command line")
// and the variable or flag.
func (l *layer) keepText(src, dest map[string]any, file string, name func(configSetting) string) error {
	values := map[string]any{}
	for _, set := range configSettings() {
		text, ok := lookupPath(src, set.path).(string)
		if !ok {
			continue
		}
		v, err := parseText(configSchema().lookup(set.path).kind, text)
		if err != nil {
			return &Error{File: file, Key: name(set), Err: err}
		}
		setPath(values, set.path, v)
	}
	l.keep(values, dest)
	return nil
}

// stack merges layers in order into one koanf instance and answers, for
// each path, which layer set it last.
//
// The built-in price table stays out of koanf, which deep-copies what it
// holds on every merge and on every read of a table: with the table in the
// defaults layer, [Load] took 3 to 5 ms instead of 0.4. Only [prices]
// entries from files go in, and finish lays them over the table; a
// built-in price no layer changed comes from "default".
type stack struct {
	ko     *koanf.Koanf
	layers []*layer
	// derived are origins of values no layer set: the cache prices of a
	// model without a built-in price, which default to its input price.
	derived map[string]Origin
	// builtin is the final price table, for the origin of built-in
	// prices (see [stack]); set by finish.
	builtin map[string]Price
}

// newStack returns a stack holding the built-in defaults.
func newStack() *stack {
	s := &stack{ko: koanf.New(pathSep), derived: map[string]Origin{}}
	// Merging the defaults into an empty instance cannot fail.
	_ = s.push(defaultsLayer())
	return s
}

// push merges l over the stack.
func (s *stack) push(l *layer) error {
	s.layers = append(s.layers, l)
	if err := s.ko.Merge(l.ko); err != nil {
		return fmt.Errorf("config: merge: %w", err)
	}
	return nil
}

// origin returns where the value at path came from: the last layer that
// set it, or the zero Origin.
func (s *stack) origin(path []string) Origin {
	k := strings.Join(path, pathSep)
	if o, ok := s.derived[k]; ok {
		return o
	}
	for i := len(s.layers) - 1; i >= 0; i-- {
		if s.layers[i].paths[k] {
			return s.layers[i].origin(path)
		}
	}
	if len(path) >= 2 && path[0] == "prices" {
		if _, ok := s.builtin[path[1]]; ok {
			return Origin{Source: "default"}
		}
	}
	if len(path) >= 2 && path[0] == "models" {
		// The built-in table, or a configured model's field it left
		// unset, filled from [UnknownWindow].
		return Origin{Source: "default"}
	}
	return Origin{}
}

// untrusted returns the filter of an untrusted workspace layer: it removes
// what could redirect keys and traffic (provider, base_url, [providers]),
// put workspace programs on the bash tool's PATH ([bash]), loosen the
// shell sandbox ([shell]) or the policy (allow_all), run the checkout's commands around every tool
// call ([hooks]), start the checkout's programs as MCP servers ([mcp]),
// send the run's spans to its own collector ([telemetry]) or
// defeat a
// spending cap ([prices], and [limits] looser than those the
// stack already holds), and adds the display names of what it removed to
// *dropped.
func (s *stack) untrusted(dropped *[]string) func(map[string]any) {
	return func(values map[string]any) {
		// [verify] command runs outside the policy: a checkout must not
		// choose it.
		if v, ok := values["verify"].(map[string]any); ok {
			if _, ok := v["command"]; ok {
				delete(v, "command")
				*dropped = append(*dropped, "verify.command")
			}
		}
		for _, k := range []string{"provider", "base_url", "providers", "prices", "bash", "shell", "allow_all", "hooks", "mcp", "telemetry"} {
			if _, ok := values[k]; ok {
				delete(values, k)
				name := k
				if k == "providers" || k == "prices" || k == "bash" || k == "shell" || k == "hooks" || k == "mcp" || k == "telemetry" {
					name = "[" + k + "]"
				}
				*dropped = append(*dropped, name)
			}
		}
		// Limits and input sizes bound memory, disk and spend: a checkout
		// may lower them, never raise them.
		for _, table := range []string{"limits", "input", "query"} {
			vals, _ := values[table].(map[string]any)
			for _, k := range sortedKeys(vals) {
				cur := s.ko.Get(table + pathSep + k)
				if !tighter(vals[k], cur) {
					delete(vals, k)
					*dropped = append(*dropped, table+"."+k+" (looser than the value already set)")
				}
			}
		}
	}
}

// tighter reports whether limit v is at least as strict as cur, where zero
// means no limit.
func tighter(v, cur any) bool {
	f := func(x any) float64 {
		switch n := x.(type) {
		case int64:
			return float64(n)
		case float64:
			return n
		case time.Duration:
			return float64(n)
		case ByteSize:
			return float64(n)
		}
		return 0
	}
	a, b := f(v), f(cur)
	if a == 0 {
		return b == 0
	}
	return b == 0 || a <= b
}

// presetSettings says whether [providers.NAME] only sets a built-in
// preset's own keys (structured_output), rather than defining an entry.
func (s *stack) presetSettings(name string) bool {
	if _, ok := presetByName(name); !ok {
		return false
	}
	for _, k := range s.ko.MapKeys(strings.Join([]string{"providers", name}, pathSep)) {
		if k != "structured_output" {
			return false
		}
	}
	return true
}

// finish checks custom providers and prices and decodes the merged values
// into a Config.
func (s *stack) finish() (Config, error) {
	for _, name := range s.ko.MapKeys("providers") {
		if s.presetSettings(name) {
			continue
		}
		for _, k := range []string{"type", "base_url"} {
			if !s.ko.Exists(strings.Join([]string{"providers", name, k}, pathSep)) {
				return Config{}, s.missing([]string{"providers", name}, k, "a custom provider needs type and base_url")
			}
		}
	}
	if err := s.checkMCP(); err != nil {
		return Config{}, err
	}
	prices, err := s.prices()
	if err != nil {
		return Config{}, err
	}
	cfg := Config{}
	if err := s.ko.UnmarshalWithConf("", &cfg, koanfUnmarshalConf(&cfg)); err != nil {
		return Config{}, fmt.Errorf("config: decode: %w", err)
	}
	if cfg.Hooks, err = s.hooks(); err != nil {
		return Config{}, err
	}
	if cfg.Providers == nil {
		cfg.Providers = map[string]ProviderConfig{}
	}
	cfg.Prices = prices
	cfg.Models = s.models()
	return cfg, nil
}

// koanfUnmarshalConf decodes by koanf tags into result, refusing keys the
// struct does not have.
func koanfUnmarshalConf(result any) koanf.UnmarshalConf {
	return koanf.UnmarshalConf{
		DecoderConfig: &mapstructure.DecoderConfig{
			TagName:     "koanf",
			ErrorUnused: true,
			Result:      result,
		},
	}
}

// prices returns the built-in price table with the merged [prices]
// entries laid over it, field by field. A model without a built-in price
// needs input and output; its unknown cache prices are charged as full
// input, so that a cap may stop early, never late.
func (s *stack) prices() (map[string]Price, error) {
	prices := DefaultPrices()
	for _, model := range s.ko.MapKeys("prices") {
		key := func(k string) string { return strings.Join([]string{"prices", model, k}, pathSep) }
		p, builtin := prices[model]
		if !builtin {
			for _, k := range []string{"input", "output"} {
				if !s.ko.Exists(key(k)) {
					return nil, s.missing([]string{"prices", model}, k,
						"a model without a built-in price needs both input and output")
				}
			}
			for _, k := range []string{"cache_read", "cache_write"} {
				if !s.ko.Exists(key(k)) {
					s.derived[key(k)] = Origin{Source: "default: the input price"}
				}
			}
			in := s.ko.Float64(key("input"))
			p = Price{CacheRead: in, CacheWrite: in}
		}
		for k, dst := range map[string]*float64{"input": &p.Input, "output": &p.Output, "cache_read": &p.CacheRead, "cache_write": &p.CacheWrite} {
			if s.ko.Exists(key(k)) {
				*dst = s.ko.Float64(key(k))
			}
		}
		prices[model] = p
	}
	s.builtin = prices
	return prices, nil
}

// models returns the built-in window table with the merged [models]
// entries laid over it, field by field; a model without a built-in window
// takes the fields it does not set from [UnknownWindow].
func (s *stack) models() map[string]Window {
	windows := DefaultWindows()
	for _, model := range s.ko.MapKeys("models") {
		key := func(k string) string { return strings.Join([]string{"models", model, k}, pathSep) }
		w, ok := LookupWindow(windows, model)
		if !ok {
			w = UnknownWindow()
		}
		if s.ko.Exists(key("context_window")) {
			w.ContextWindow = int(s.ko.Int64(key("context_window")))
		}
		if s.ko.Exists(key("max_output")) {
			w.MaxOutput = int(s.ko.Int64(key("max_output")))
		}
		windows[model] = w
	}
	return windows
}

// missing reports a required key absent from the table at path, naming the
// file that defined the table.
func (s *stack) missing(path []string, key, why string) error {
	o := s.origin(path)
	return &Error{File: o.Source, Line: o.Line, Key: DisplayKey(append(path, key)), Err: fmt.Errorf("missing: %s", why)}
}

// walkValues calls fn for every value under m, tables before their
// members, in key order.
func walkValues(path []string, m map[string]any, fn func([]string, any)) {
	for _, k := range sortedKeys(m) {
		p := append(path[:len(path):len(path)], k)
		fn(p, m[k])
		if sub, ok := m[k].(map[string]any); ok {
			walkValues(p, sub, fn)
		}
	}
}

// lookupPath returns the value at path in the nested map m, or nil.
func lookupPath(m map[string]any, path []string) any {
	var v any = m
	for _, k := range path {
		sub, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = sub[k]
	}
	return v
}

// setPath sets the value at path in the nested map m, making the tables
// on the way.
func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		sub, ok := m[k].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[k] = sub
		}
		m = sub
	}
	m[path[len(path)-1]] = v
}

// defaultValues returns the built-in defaults as the nested map koanf
// merges, with the same value types as a parsed file. The price table is
// left out (see [stack]), and so are the empty provider, model and base
// URL.
func defaultValues() map[string]any {
	c := Default()
	return map[string]any{
		"compact_at": c.CompactAt,
		"limits": map[string]any{
			"max_turns":             int64(c.Limits.MaxTurns),
			"timeout":               c.Limits.Timeout,
			"max_tokens_total":      c.Limits.MaxTokensTotal,
			"max_cost":              c.Limits.MaxCost,
			"max_tool_calls":        int64(c.Limits.MaxToolCalls),
			"parallel_tool_calls":   int64(c.Limits.ParallelToolCalls),
			"stream_idle_timeout":   c.Limits.StreamIdleTimeout,
			"stream_header_timeout": c.Limits.StreamHeaderTimeout,
			"max_response_size":     c.Limits.MaxResponseSize,
		},
		"input": map[string]any{
			"stdin_inline_max": c.Input.StdinInlineMax,
			"stdin_max":        c.Input.StdinMax,
		},
		"verify": map[string]any{
			"attempts": int64(c.Verify.Attempts),
			"timeout":  c.Verify.Timeout,
		},
		"query": map[string]any{
			"concurrency": int64(c.Query.Concurrency),
			"max_queries": int64(c.Query.MaxQueries),
		},
		"shell": map[string]any{
			"sandbox": c.Shell.Sandbox,
			"network": c.Shell.Network,
		},
	}
}
