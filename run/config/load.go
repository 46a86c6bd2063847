package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

	origin func([]string) Origin
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
	if l.origin == nil {
		return Origin{}
	}
	return l.origin(path)
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
		{[]string{"compact_at"}, "compact-at"},
		{[]string{"limits", "max_turns"}, "max-turns"},
		{[]string{"limits", "timeout"}, "timeout"},
		{[]string{"limits", "max_tokens_total"}, "max-tokens-total"},
		{[]string{"limits", "max_cost"}, "max-cost"},
		{[]string{"limits", "max_tool_calls"}, "max-tool-calls"},
		{[]string{"limits", "parallel_tool_calls"}, "parallel-tool-calls"},
		{[]string{"limits", "stream_idle_timeout"}, "stream-idle-timeout"},
		{[]string{"limits", "stream_header_timeout"}, "stream-header-timeout"},
		{[]string{"limits", "max_response_size"}, "max-response-size"},
		{[]string{"input", "stdin_inline_max"}, "stdin-inline-max"},
		{[]string{"input", "stdin_max"}, "stdin-max"},
		{[]string{"verify", "command"}, "verify"},
		{[]string{"verify", "attempts"}, "verify-attempts"},
		{[]string{"verify", "timeout"}, "verify-timeout"},
		{[]string{"shell", "sandbox"}, "sandbox"},
		{[]string{"shell", "network"}, "network"},
		{[]string{"allow_all"}, "allow-all"},
		{[]string{"query", "model"}, "sub-model"},
		{[]string{"query", "concurrency"}, "query-concurrency"},
		{[]string{"query", "max_queries"}, "max-queries"},
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
	ld := configLoader{opts: opts, env: opts.LookupEnv, lc: &Loaded{}, s: newStack()}
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
	ld.lc.origin = ld.s.origin
	return ld.lc, nil
}

// configLoader merges the sources of one [Load] call, one method per
// layer, in order.
type configLoader struct {
	opts Options
	env  func(string) (string, bool)
	lc   *Loaded
	s    *stack
}

// readFile parses the file at path into a layer, with filter applied (see
// [fileLayer]). A missing file that is not required comes back nil.
func (ld *configLoader) readFile(path string, required bool, filter func(map[string]any)) (*layer, error) {
	f, err := openConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{File: path, Err: unwrapPathError(err)}
	}
	defer f.Close()
	data, err := readCapped(f, path)
	if err != nil {
		return nil, err
	}
	l, err := fileLayer(data, path, filter)
	if err != nil {
		return nil, err
	}
	ld.lc.Files = append(ld.lc.Files, path)
	return l, nil
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
	l, err := ld.readFile(p, false, nil)
	if err != nil || l == nil {
		return err
	}
	return ld.s.push(l)
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
	l, err := ld.readFile(path, true, nil)
	if err != nil {
		return err
	}
	return ld.s.push(l)
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
	var filter func(map[string]any)
	var dropped []string
	if !ld.opts.TrustWorkspace {
		filter = ld.s.untrusted(&dropped)
	}
	l, err := ld.readFile(path, false, filter)
	if err != nil || l == nil {
		return err
	}
	if len(dropped) > 0 {
		ld.lc.Notes = append(ld.lc.Notes, fmt.Sprintf(
			"ignoring %s in %s: workspace files are not trusted in a headless run (pass --trust-workspace to use them)",
			strings.Join(dropped, ", "), path))
	}
	return ld.s.push(l)
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
	l, err := envLayer(ld.env)
	if err != nil {
		return err
	}
	return ld.s.push(l)
}

// flags merges the configuration flags given on the command line.
func (ld *configLoader) flags() error {
	l, err := flagLayer(ld.opts.Flags)
	if err != nil {
		return err
	}
	return ld.s.push(l)
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
