package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// HookDefaultTimeout is a hook's timeout when its entry gives none.
const HookDefaultTimeout = 30 * time.Second

// Hooks are the commands a team runs around the model's tool calls and
// before a run ends ([[hooks.before_tool]], [[hooks.after_tool]],
// [[hooks.stop]]). Unlike other keys, hook lists add up across files:
// the user file's hooks run first, then the --config file's, then the
// workspace file's (which an untrusted workspace cannot set).
type Hooks struct {
	BeforeTool []Hook `koanf:"before_tool"`
	AfterTool  []Hook `koanf:"after_tool"`
	Stop       []Hook `koanf:"stop"`
}

// Empty reports whether no hook is configured.
func (h Hooks) Empty() bool {
	return len(h.BeforeTool) == 0 && len(h.AfterTool) == 0 && len(h.Stop) == 0
}

// Hook is one hook entry.
type Hook struct {
	// Name names the hook in messages and events; empty: the command's
	// first word.
	Name string `koanf:"name"`
	// Command is run by `sh -c` in the workspace root.
	Command string `koanf:"command"`
	// Match lists globs on tool names (doublestar syntax); empty: every
	// tool. Stop hooks ignore it.
	Match []string `koanf:"match"`
	// Timeout stops the hook; [HookDefaultTimeout] when the entry gives
	// none.
	Timeout time.Duration `koanf:"timeout"`
}

// Label is the hook's name, or the first word of its command.
func (h Hook) Label() string {
	if h.Name != "" {
		return h.Name
	}
	f := strings.Fields(h.Command)
	if len(f) == 0 {
		return "hook"
	}
	return f[0]
}

// Matches reports whether the hook applies to the tool named tool: no
// globs, or one of them matches.
func (h Hook) Matches(tool string) bool {
	if len(h.Match) == 0 {
		return true
	}
	for _, g := range h.Match {
		if ok, err := doublestar.Match(g, tool); err == nil && ok {
			return true
		}
	}
	return false
}

// hooksSchema is the [hooks] table: each key an array of hook tables.
func hooksSchema() *field {
	return table(
		"before_tool", leaf(kindHookList),
		"after_tool", leaf(kindHookList),
		"stop", leaf(kindHookList),
	)
}

// normalizeHookList checks an array of hook tables and returns it with
// normalized values: command (required), name, match (globs) and timeout
// (a duration above zero, default [HookDefaultTimeout]).
func normalizeHookList(v any) (any, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of tables ([[hooks.NAME]] entries), got %s", tomlType(v))
	}
	out := make([]any, 0, len(items))
	for i, it := range items {
		h, err := normalizeHook(it)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		out = append(out, h)
	}
	return out, nil
}

func normalizeHook(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a table, got %s", tomlKind(v))
	}
	out := map[string]any{"timeout": HookDefaultTimeout}
	for _, k := range sortedKeys(m) {
		switch x := m[k]; k {
		case "command", "name":
			s, ok := x.(string)
			if !ok || strings.TrimSpace(s) == "" || strings.IndexByte(s, 0) >= 0 {
				return nil, fmt.Errorf("%s: want a non-empty string, got %s", k, tomlType(x))
			}
			out[k] = s
		case "match":
			globs, err := normalizeGlobs(x)
			if err != nil {
				return nil, fmt.Errorf("match: %w", err)
			}
			out[k] = globs
		case "timeout":
			d, err := normalizeDuration(x)
			if err != nil {
				return nil, fmt.Errorf("timeout: %w", err)
			}
			if d.(time.Duration) == 0 {
				return nil, errors.New("timeout: must be above zero (a hook always has a timeout)")
			}
			out[k] = d
		default:
			return nil, fmt.Errorf("%s: %w (known keys here: name, command, match, timeout)", k, ErrUnknownKey)
		}
	}
	if _, ok := out["command"]; !ok {
		return nil, errors.New("missing: a hook needs a command")
	}
	return out, nil
}

// normalizeGlobs checks an array of tool-name globs.
func normalizeGlobs(v any) ([]string, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of tool-name globs, got %s", tomlType(v))
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok || s == "" {
			return nil, fmt.Errorf("want non-empty glob strings, got %s", tomlType(it))
		}
		if !doublestar.ValidatePattern(s) {
			return nil, fmt.Errorf("%s is not a valid glob", strconv.Quote(s))
		}
		out = append(out, s)
	}
	return out, nil
}

// hooks returns the hook lists of every layer, in layer order: hooks add
// up instead of replacing each other.
func (s *stack) hooks() (Hooks, error) {
	var all Hooks
	for _, l := range s.layers {
		if !l.ko.Exists("hooks") {
			continue
		}
		var h Hooks
		if err := l.ko.UnmarshalWithConf("hooks", &h, koanfUnmarshalConf(&h)); err != nil {
			return Hooks{}, fmt.Errorf("config: decode hooks: %w", err)
		}
		all.BeforeTool = append(all.BeforeTool, h.BeforeTool...)
		all.AfterTool = append(all.AfterTool, h.AfterTool...)
		all.Stop = append(all.Stop, h.Stop...)
	}
	return all, nil
}
