package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
)

// Options says where [Load] finds configuration. Load reads
// files but never the process environment: the caller hands it in.
type Options struct {
	// LookupEnv looks up an environment variable (os.LookupEnv in main).
	// Nil means an empty environment.
	LookupEnv func(string) (string, bool)
	// Home is the user's home directory; with $XDG_CONFIG_HOME unset the
	// user file is Home/.config/rubichan/config.toml. Empty skips it.
	Home string
	// Workspace is the workspace root; its .rubichan/config.toml is read.
	// Empty skips it.
	Workspace string
	// ConfigFile is --config FILE, read after the user file. Empty falls
	// back to $RUBICHAN_CONFIG, then to none.
	ConfigFile string
	// Flags holds the configuration flags the user set, by flag name
	// without dashes ("max-cost" → "0.50"); see [FlagNames].
	Flags map[string]string
	// TrustWorkspace loads the workspace file's provider, base_url,
	// [providers] and [prices] and lets its [limits] loosen earlier ones.
	// Set it in line mode (a person at a terminal) or with
	// --trust-workspace; leave it false in headless runs.
	TrustWorkspace bool
}

// Loaded is the effective configuration with where each value came
// from.
type Loaded struct {
	Config
	// Notes are messages for stderr, such as workspace keys ignored under
	// the trust rule. The caller prints them.
	Notes []string
	// Files are the configuration files read, in order.
	Files []string

	origins map[string]Origin
}

// Origin says where a configuration value came from: a file (and line), an
// environment variable, a flag, or the built-in defaults.
type Origin struct {
	// Source is a file path, "env NAME", "flag --name" or "default".
	Source string
	// Line is the line in the file, or 0.
	Line int
}

// String writes "FILE:LINE", "FILE", "env NAME", "flag --name" or "default".
func (o Origin) String() string {
	if o.Line > 0 {
		return o.Source + ":" + strconv.Itoa(o.Line)
	}
	return o.Source
}

// Origin returns where the value at path (such as "limits", "max_cost")
// came from, or the zero Origin if nothing set it. A built-in price that no
// file changed comes from "default".
func (l *Loaded) Origin(path ...string) Origin {
	if o, ok := l.origins[strings.Join(path, pathSep)]; ok {
		return o
	}
	if len(path) >= 2 && path[0] == "prices" {
		if _, ok := l.Prices[path[1]]; ok {
			return Origin{Source: "default"}
		}
	}
	return Origin{}
}

// EnvName is the environment variable a flag also reads: RUBICHAN_ + the
// flag's name in upper snake case (--max-turns → RUBICHAN_MAX_TURNS).
func EnvName(flag string) string {
	return "RUBICHAN_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// configSetting ties a configuration key to its flag and environment
// variable.
type configSetting struct {
	path []string
	flag string
}

// configSettings lists the keys that have a flag and a RUBICHAN_ variable.
func configSettings() []configSetting {
	return []configSetting{
		{[]string{"provider"}, "provider"},
		{[]string{"model"}, "model"},
		{[]string{"base_url"}, "base-url"},
		{[]string{"limits", "max_turns"}, "max-turns"},
		{[]string{"limits", "timeout"}, "timeout"},
		{[]string{"limits", "max_tokens_total"}, "max-tokens-total"},
		{[]string{"limits", "max_cost"}, "max-cost"},
		{[]string{"limits", "max_tool_calls"}, "max-tool-calls"},
		{[]string{"input", "stdin_inline_max"}, "stdin-inline-max"},
	}
}

// FlagNames returns the names of the flags that set configuration
// keys (the keys of [Options.Flags]), "config" excluded.
func FlagNames() []string {
	var names []string
	for _, s := range configSettings() {
		names = append(names, s.flag)
	}
	return names
}

// UserPath returns $XDG_CONFIG_HOME/rubichan/config.toml, with
// XDG_CONFIG_HOME defaulting to home/.config (a relative XDG_CONFIG_HOME is
// ignored, as the XDG spec says). It returns "" when neither is known.
func UserPath(lookupEnv func(string) (string, bool), home string) string {
	if dir, ok := lookupEnv("XDG_CONFIG_HOME"); ok && filepath.IsAbs(dir) {
		return filepath.Join(dir, "rubichan", "config.toml")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "rubichan", "config.toml")
}

// WorkspacePath returns the workspace's .rubichan/config.toml.
func WorkspacePath(workspace string) string {
	return filepath.Join(workspace, ".rubichan", "config.toml")
}

// Load builds the effective configuration, later sources winning:
// built-in defaults, the user file, the --config file, the workspace file
// (under the trust rule), RUBICHAN_* variables, then flags. A missing user
// or workspace file is skipped; a missing --config file is an error. Every
// error is or wraps a [*Error] that names the
// file or variable, the key and, for files, the line.
func Load(opts Options) (*Loaded, error) {
	ld := configLoader{opts: opts, env: opts.LookupEnv, lc: &Loaded{}, s: newConfigStack()}
	if ld.env == nil {
		ld.env = func(string) (string, bool) { return "", false }
	}
	for _, step := range []func() error{ld.userFile, ld.explicitFile, ld.workspaceFile, ld.variables, ld.flags} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	cfg, err := ld.s.finish()
	if err != nil {
		return nil, err
	}
	ld.lc.Config = cfg
	ld.lc.origins = ld.s.origins
	return ld.lc, nil
}

// configLoader merges the sources of one [Load] call, one method per
// layer, in order.
type configLoader struct {
	opts Options
	env  func(string) (string, bool)
	lc   *Loaded
	s    *configStack
}

// readFile parses the file at path. A missing file that is not required
// comes back with ok false.
func (ld *configLoader) readFile(path string, required bool) (l configLayer, ok bool, err error) {
	f, err := openConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return configLayer{}, false, nil
	}
	if err != nil {
		return configLayer{}, false, &Error{File: path, Err: unwrapPathError(err)}
	}
	defer f.Close()
	l, err = parseConfigLayer(f, path)
	if err != nil {
		return configLayer{}, false, err
	}
	ld.lc.Files = append(ld.lc.Files, path)
	return l, true, nil
}

// openConfigFile opens a config file, which must be a regular file: a
// workspace file comes from the checkout, and a symlink to /dev/zero must
// not be read until memory runs out (parseConfigLayer caps what it reads
// of a regular file). The type is checked before opening, so a FIFO is
// refused, not waited on.
func openConfigFile(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		// the error opening it says what is wrong, as it always did
		f, oerr := os.Open(path)
		if oerr != nil {
			return nil, oerr
		}
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.Open(path)
}

// userFile merges $XDG_CONFIG_HOME/rubichan/config.toml, if it exists.
func (ld *configLoader) userFile() error {
	p := UserPath(ld.env, ld.opts.Home)
	if p == "" {
		return nil
	}
	l, ok, err := ld.readFile(p, false)
	if err != nil || !ok {
		return err
	}
	return ld.s.add(l.values, layerOrigin(l))
}

// explicitFile merges the --config file (or $RUBICHAN_CONFIG), which must
// exist.
func (ld *configLoader) explicitFile() error {
	path := ld.opts.ConfigFile
	if path == "" {
		path, _ = ld.env(EnvName("config"))
	}
	if path == "" {
		return nil
	}
	l, _, err := ld.readFile(path, true)
	if err != nil {
		return err
	}
	return ld.s.add(l.values, layerOrigin(l))
}

// workspaceFile merges .rubichan/config.toml in the workspace, if it
// exists, without what the trust rule drops from an untrusted one.
func (ld *configLoader) workspaceFile() error {
	if ld.opts.Workspace == "" {
		return nil
	}
	path := WorkspacePath(ld.opts.Workspace)
	if !ld.opts.TrustWorkspace {
		if err := insideWorkspace(path, ld.opts.Workspace); err != nil {
			return &Error{File: path, Err: err}
		}
	}
	l, ok, err := ld.readFile(path, false)
	if err != nil || !ok {
		return err
	}
	if !ld.opts.TrustWorkspace {
		if dropped := ld.s.untrusted(l.values); len(dropped) > 0 {
			ld.lc.Notes = append(ld.lc.Notes, fmt.Sprintf(
				"ignoring %s in %s: workspace files are not trusted in a headless run (pass --trust-workspace to use them)",
				strings.Join(dropped, ", "), l.file))
		}
	}
	return ld.s.add(l.values, layerOrigin(l))
}

// insideWorkspace refuses a workspace config file that is a symlink
// leading out of the workspace: the checkout chose it, and the errors about
// what a file holds would show pieces of whatever it points at
// (/proc/self/environ, a file of the runner). A missing file is fine.
func insideWorkspace(path, workspace string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil // missing, or unreadable: reading it says what is wrong
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		root = workspace
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return errors.New("a symlink that leads outside the workspace; workspace files are not trusted in a headless run (pass --trust-workspace to use it)")
	}
	return nil
}

// variables merges the RUBICHAN_* variables that are set and not empty.
func (ld *configLoader) variables() error {
	for _, set := range configSettings() {
		name := EnvName(set.flag)
		v, ok := ld.env(name)
		if !ok || v == "" {
			continue
		}
		if err := ld.s.addText(set.path, v, "environment", name, Origin{Source: "env " + name}); err != nil {
			return err
		}
	}
	return nil
}

// flags merges the configuration flags given on the command line.
func (ld *configLoader) flags() error {
	known := map[string]bool{}
	for _, set := range configSettings() {
		known[set.flag] = true
		v, ok := ld.opts.Flags[set.flag]
		if !ok {
			continue
		}
		if err := ld.s.addText(set.path, v, FromCommandLine, "--"+set.flag, Origin{Source: "flag --" + set.flag}); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(ld.opts.Flags) {
		if !known[name] {
			return fmt.Errorf("config: --%s is not a configuration flag", name)
		}
	}
	return nil
}

// unwrapPathError drops the path from an *fs.PathError, since Error
// already names the file.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// layerOrigin returns the origin of each path in a file layer.
func layerOrigin(l configLayer) func([]string) Origin {
	return func(path []string) Origin {
		return Origin{Source: l.file, Line: l.lines.Nearest(path...)}
	}
}

// configStack merges layers with koanf and remembers the origin of every
// leaf value. The built-in price table stays out of koanf, which deep-copies
// everything it holds on every merge: only [prices] entries from files go
// in, and finish lays them over the table.
type configStack struct {
	ko      *koanf.Koanf
	origins map[string]Origin
}

// pathSep joins key parts in origin maps and is koanf's key delimiter.
// TOML keys can hold dots and slashes (model names such as "gpt-4.1",
// "openai/gpt-oss-120b"), so neither can be the delimiter; a unit
// separator cannot appear in a model name (checkModelName refuses control
// characters).
const pathSep = "\x1f"

// koanfDelim is koanf's key delimiter.
const koanfDelim = pathSep

func newConfigStack() *configStack {
	s := &configStack{ko: koanf.New(koanfDelim), origins: map[string]Origin{}}
	// Loading a confmap cannot fail.
	_ = s.add(defaultValues(), func([]string) Origin { return Origin{Source: "default"} })
	return s
}

// add merges normalized values over the stack.
func (s *configStack) add(values map[string]any, origin func([]string) Origin) error {
	walkValues(nil, values, func(path []string, _ any) {
		s.origins[strings.Join(path, pathSep)] = origin(path)
	})
	if err := s.ko.Load(confmap.Provider(values, ""), nil); err != nil {
		return fmt.Errorf("config: merge: %w", err)
	}
	return nil
}

// addText parses the text of a variable or flag for the key at path and
// merges it.
func (s *configStack) addText(path []string, text, file, name string, o Origin) error {
	f := configSchema().lookup(path)
	v, err := parseText(f.kind, text)
	if err != nil {
		return &Error{File: file, Key: name, Err: err}
	}
	values := map[string]any{}
	m := values
	for _, k := range path[:len(path)-1] {
		sub := map[string]any{}
		m[k] = sub
		m = sub
	}
	m[path[len(path)-1]] = v
	return s.add(values, func([]string) Origin { return o })
}

// untrusted removes from an untrusted workspace layer what could redirect
// keys and traffic (provider, base_url, [providers]) or defeat a spending
// cap ([prices], and [limits] looser than those already set). It returns
// the display names of what it removed.
func (s *configStack) untrusted(values map[string]any) []string {
	var dropped []string
	for _, k := range []string{"provider", "base_url", "providers", "prices"} {
		if _, ok := values[k]; ok {
			delete(values, k)
			name := k
			if k == "providers" || k == "prices" {
				name = "[" + k + "]"
			}
			dropped = append(dropped, name)
		}
	}
	limits, _ := values["limits"].(map[string]any)
	for _, k := range sortedKeys(limits) {
		cur := s.ko.Get("limits" + koanfDelim + k)
		if !tighter(limits[k], cur) {
			delete(limits, k)
			dropped = append(dropped, "limits."+k+" (looser than the value already set)")
		}
	}
	return dropped
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
		}
		return 0
	}
	a, b := f(v), f(cur)
	if a == 0 {
		return b == 0
	}
	return b == 0 || a <= b
}

// finish checks custom providers, decodes the merged values into a Config
// and lays the [prices] entries over the built-in price table.
func (s *configStack) finish() (Config, error) {
	raw := s.ko.Raw()
	providers, _ := raw["providers"].(map[string]any)
	for _, name := range sortedKeys(providers) {
		p, _ := providers[name].(map[string]any)
		for _, k := range []string{"type", "base_url"} {
			if _, ok := p[k]; !ok {
				return Config{}, s.missing([]string{"providers", name}, k, "a custom provider needs type and base_url")
			}
		}
	}
	prices, err := s.prices(raw)
	if err != nil {
		return Config{}, err
	}

	cfg := Config{}
	err = s.ko.UnmarshalWithConf("", &cfg, koanf.UnmarshalConf{
		DecoderConfig: &mapstructure.DecoderConfig{
			TagName:     "koanf",
			ErrorUnused: true,
			Result:      &cfg,
		},
	})
	if err != nil {
		return Config{}, fmt.Errorf("config: decode: %w", err)
	}
	if cfg.Providers == nil {
		cfg.Providers = map[string]ProviderConfig{}
	}
	cfg.Prices = prices
	return cfg, nil
}

// prices returns the built-in price table with the merged [prices] entries
// of raw laid over it, field by field. A model without a built-in price
// needs input and output; its unknown cache prices are charged as full
// input, so that a cap may stop early, never late.
func (s *configStack) prices(raw map[string]any) (map[string]Price, error) {
	prices := DefaultPrices()
	entries, _ := raw["prices"].(map[string]any)
	for _, model := range sortedKeys(entries) {
		e, _ := entries[model].(map[string]any)
		p, builtin := prices[model]
		if !builtin {
			for _, k := range []string{"input", "output"} {
				if _, ok := e[k]; !ok {
					return nil, s.missing([]string{"prices", model}, k,
						"a model without a built-in price needs both input and output")
				}
			}
			for _, k := range []string{"cache_read", "cache_write"} {
				if _, ok := e[k]; !ok {
					s.origins[strings.Join([]string{"prices", model, k}, pathSep)] = Origin{Source: "default: the input price"}
				}
			}
			in, _ := e["input"].(float64)
			p = Price{CacheRead: in, CacheWrite: in}
		}
		for k, dst := range map[string]*float64{"input": &p.Input, "output": &p.Output, "cache_read": &p.CacheRead, "cache_write": &p.CacheWrite} {
			if v, ok := e[k].(float64); ok {
				*dst = v
			}
		}
		prices[model] = p
	}
	return prices, nil
}

// missing reports a required key absent from the table at path, naming the
// file that defined the table.
func (s *configStack) missing(path []string, key, why string) error {
	o := s.origins[strings.Join(path, pathSep)]
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

// defaultValues returns the built-in defaults as the nested map koanf
// merges, with the same value types as a parsed file. The price table is
// left out (see [configStack]), and so are the empty provider, model and
// base URL.
func defaultValues() map[string]any {
	c := Default()
	return map[string]any{
		"limits": map[string]any{
			"max_turns":        int64(c.Limits.MaxTurns),
			"timeout":          c.Limits.Timeout,
			"max_tokens_total": c.Limits.MaxTokensTotal,
			"max_cost":         c.Limits.MaxCost,
			"max_tool_calls":   int64(c.Limits.MaxToolCalls),
		},
		"input": map[string]any{
			"stdin_inline_max": c.Input.StdinInlineMax,
		},
	}
}
