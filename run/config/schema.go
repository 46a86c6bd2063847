package config

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rubichan/rubichan/policy/tomlpos"
)

// valueKind is the type of one configuration value.
type valueKind uint8

const (
	kindTable            valueKind = iota // fixed set of keys (field.fields)
	kindMap                               // any names (checked by field.name), values field.elem
	kindString                            // non-empty string
	kindProviderName                      // a preset or [providers] name
	kindURL                               // http(s) URL without credentials
	kindEnvName                           // environment variable name
	kindProviderType                      // "openai" or "anthropic"
	kindWire                              // "chat" or "responses"
	kindStructuredOutput                  // "native" or "tool"
	kindHeaderValue                       // HTTP header value
	kindCount                             // whole number >= 0
	kindTurns                             // whole number >= 1 (max_turns has no "none")
	kindUSD                               // number >= 0
	kindDuration                          // "30m", "1h30m", or 0
	kindSize                              // "256KB" or a whole number of bytes
	kindPathList                          // array of directory names
	kindBool                              // true or false
	kindSandbox                           // "auto", "required" or "off"
	kindHookList                          // array of hook tables (see hooks.go)
	kindRatio                             // number above 0 and at most 1
	kindStringList                        // array of non-empty strings (see mcp.go)
	kindEnvValue                          // any string without NUL (see mcp.go)
)

// field describes one key of the configuration schema.
type field struct {
	kind   valueKind
	order  []string          // kindTable: keys in display order
	fields map[string]*field // kindTable
	elem   *field            // kindMap
	name   func(string) error
}

func table(keys ...any) *field {
	f := &field{kind: kindTable, fields: map[string]*field{}}
	for i := 0; i < len(keys); i += 2 {
		k := keys[i].(string)
		f.order = append(f.order, k)
		f.fields[k] = keys[i+1].(*field)
	}
	return f
}

func leaf(k valueKind) *field { return &field{kind: k} }

// configSchema returns the schema of a configuration file, as documented in
// DESIGN.md "Files and formats".
func configSchema() *field {
	price := table(
		"input", leaf(kindUSD),
		"output", leaf(kindUSD),
		"cache_read", leaf(kindUSD),
		"cache_write", leaf(kindUSD),
	)
	provider := table(
		"type", leaf(kindProviderType),
		"wire", leaf(kindWire),
		"structured_output", leaf(kindStructuredOutput),
		"base_url", leaf(kindURL),
		"api_key_env", leaf(kindEnvName),
		"headers", &field{kind: kindMap, elem: leaf(kindHeaderValue), name: checkHeaderName},
	)
	return table(
		"provider", leaf(kindProviderName),
		"model", leaf(kindString),
		"base_url", leaf(kindURL),
		"compact_at", leaf(kindRatio),
		"limits", table(
			"max_turns", leaf(kindTurns),
			"timeout", leaf(kindDuration),
			"max_tokens_total", leaf(kindCount),
			"max_cost", leaf(kindUSD),
			"max_tool_calls", leaf(kindCount),
			"parallel_tool_calls", leaf(kindTurns),
			"stream_idle_timeout", leaf(kindDuration),
			"stream_header_timeout", leaf(kindDuration),
			"max_response_size", leaf(kindSize),
		),
		"input", table(
			"stdin_inline_max", leaf(kindSize),
			"stdin_max", leaf(kindSize),
		),
		"verify", table(
			"command", leaf(kindString),
			"attempts", leaf(kindTurns),
			"timeout", leaf(kindDuration),
		),
		"bash", table(
			"path_add", leaf(kindPathList),
		),
		"shell", table(
			"sandbox", leaf(kindSandbox),
			"network", leaf(kindBool),
			"writable_roots", leaf(kindPathList),
		),
		"allow_all", leaf(kindBool),
		"query", table(
			"model", leaf(kindString),
			"concurrency", leaf(kindTurns),
			"max_queries", leaf(kindCount),
		),
		"telemetry", table(
			"enabled", leaf(kindBool),
			"endpoint", leaf(kindURL),
			"flush_timeout", leaf(kindDuration),
			"propagate_to_providers", leaf(kindBool),
		),
		"hooks", hooksSchema(),
		"mcp", mcpSchema(),
		"acp", table(
			"permission_timeout", leaf(kindDuration),
		),
		"providers", &field{kind: kindMap, elem: provider, name: checkCustomProviderName},
		"prices", &field{kind: kindMap, elem: price, name: checkModelName},
		"models", &field{kind: kindMap, elem: table(
			"context_window", leaf(kindCount),
			"max_output", leaf(kindCount),
		), name: checkModelName},
	)
}

// lookup returns the schema field at path, or nil.
func (f *field) lookup(path []string) *field {
	for _, k := range path {
		switch {
		case f == nil:
			return nil
		case f.kind == kindTable:
			f = f.fields[k]
		case f.kind == kindMap:
			f = f.elem
		default:
			return nil
		}
	}
	return f
}

// normalizer checks values against the schema and converts them to the
// types the Config struct holds.
type normalizer struct {
	file  string
	lines tomlpos.Lines
	// keyName, when set, names the offending key in errors instead of the
	// dotted path (an environment variable or a flag).
	keyName string
}

func (n normalizer) errorf(path []string, format string, args ...any) error {
	return n.wrap(path, fmt.Errorf(format, args...))
}

func (n normalizer) wrap(path []string, err error) error {
	e := &Error{File: n.file, Key: DisplayKey(path), Err: err}
	if n.keyName != "" {
		e.Key = n.keyName
	}
	e.Line = n.lines.Nearest(path...)
	return e
}

// value normalizes v found at path against f.
func (n normalizer) value(path []string, v any, f *field) (any, error) {
	switch f.kind {
	case kindTable, kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			// The value is not repeated: a string where a table of
			// headers belongs is often a credential.
			return nil, n.errorf(path, "want a table, got %s", tomlKind(v))
		}
		out := make(map[string]any, len(m))
		for _, k := range n.keysInFileOrder(path, m) {
			sub := m[k]
			p := append(path[:len(path):len(path)], k)
			sf := f.elem
			if f.kind == kindTable {
				sf = f.fields[k]
				if sf == nil {
					return nil, n.wrap(p, fmt.Errorf("%w (known keys here: %s)", ErrUnknownKey, strings.Join(f.order, ", ")))
				}
			} else if err := f.name(k); err != nil && !presetKeysOnly(k, sub) {
				return nil, n.wrap(p, err)
			}
			nv, err := n.value(p, sub, sf)
			if err != nil {
				return nil, err
			}
			out[k] = nv
		}
		return out, nil
	}
	nv, err := normalizeLeaf(f.kind, v)
	if err != nil {
		return nil, n.wrap(path, err)
	}
	return nv, nil
}

// keysInFileOrder returns the keys of the table m at path in the order
// they are written in the file (by name where the lines are not known), so
// that of several problems the first one in the file is reported, the same
// one on every run.
func (n normalizer) keysInFileOrder(path []string, m map[string]any) []string {
	keys := sortedKeys(m)
	line := func(k string) int { return n.lines.Nearest(append(path[:len(path):len(path)], k)...) }
	sort.SliceStable(keys, func(i, j int) bool { return line(keys[i]) < line(keys[j]) })
	return keys
}

// normalizeLeaf checks one scalar.
func normalizeLeaf(k valueKind, v any) (any, error) {
	switch k {
	case kindCount:
		return normalizeCount(v)
	case kindTurns:
		return normalizeTurns(v)
	case kindUSD:
		return normalizeUSD(v)
	case kindRatio:
		return normalizeRatio(v)
	case kindDuration:
		return normalizeDuration(v)
	case kindSize:
		return normalizeSize(v)
	case kindPathList:
		return normalizePathList(v)
	case kindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, fmt.Errorf("want true or false, got %s", tomlType(v))
	case kindHookList:
		return normalizeHookList(v)
	case kindStringList, kindEnvValue:
		return normalizeMCPLeaf(k, v)
	}
	return normalizeString(k, v)
}

// normalizePathList checks an array of directory names: each non-empty,
// without NUL or the PATH separator.
func normalizePathList(v any) (any, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of directory names, got %s", tomlType(v))
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("want directory names (strings), got %s", tomlType(it))
		}
		if strings.TrimSpace(s) == "" || strings.ContainsAny(s, ":\x00") {
			return nil, fmt.Errorf("want a directory name without ':' or NUL, got %q", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// normalizeCount checks a whole number >= 0.
func normalizeCount(v any) (any, error) {
	i, ok := v.(int64)
	if !ok {
		return nil, fmt.Errorf("want a whole number, got %s", tomlType(v))
	}
	if i < 0 {
		return nil, fmt.Errorf("must not be negative (0 means no limit), got %d", i)
	}
	return i, nil
}

// normalizeTurns checks a whole number >= 1: unlike the other limits, zero
// turns is not "no limit" but a run that could do nothing.
func normalizeTurns(v any) (any, error) {
	i, ok := v.(int64)
	if !ok {
		return nil, fmt.Errorf("want a whole number, got %s", tomlType(v))
	}
	if i < 1 {
		return nil, fmt.Errorf("must be at least 1, got %d", i)
	}
	return i, nil
}

// normalizeUSD checks an amount of dollars >= 0 and makes it a float64.
// normalizeRatio checks a share: above 0 and at most 1.
func normalizeRatio(v any) (any, error) {
	f, err := normalizeUSD(v)
	if err != nil {
		return nil, fmt.Errorf("want a ratio above 0 and at most 1, such as 0.8, got %s", tomlType(v))
	}
	if r := f.(float64); !(r > 0 && r <= 1) {
		return nil, fmt.Errorf("want a ratio above 0 and at most 1, such as 0.8, got %v", r)
	}
	return f, nil
}

func normalizeUSD(v any) (any, error) {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return nil, fmt.Errorf("want a number, got %s", tomlType(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return nil, fmt.Errorf("want a number of US dollars >= 0, got %v", f)
	}
	return f, nil
}

// normalizeDuration checks a duration such as "30m", or 0 for none.
func normalizeDuration(v any) (any, error) {
	switch x := v.(type) {
	case int64:
		if x != 0 {
			return nil, fmt.Errorf("want a duration with a unit such as \"30m\" or \"90s\" (0 means none), got %d", x)
		}
		return time.Duration(0), nil
	case string:
		d, err := time.ParseDuration(x)
		if err != nil {
			return nil, fmt.Errorf("want a duration such as \"30m\" or \"1h30m\", got %q", x)
		}
		if d < 0 {
			return nil, fmt.Errorf("must not be negative, got %q", x)
		}
		return d, nil
	}
	return nil, fmt.Errorf("want a duration such as \"30m\", got %s", tomlType(v))
}

// normalizeSize checks a size such as "256KB" or a number of bytes >= 1.
func normalizeSize(v any) (any, error) {
	var b ByteSize
	switch x := v.(type) {
	case int64:
		b = ByteSize(x)
	case string:
		var err error
		if b, err = ParseByteSize(x); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("want a size such as \"256KB\", got %s", tomlType(v))
	}
	if b < 1 {
		return nil, fmt.Errorf("want a size of at least 1B, got %d", int64(b))
	}
	return b, nil
}

// normalizeString checks a string of kind k.
func normalizeString(k valueKind, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want a string, got %s", tomlType(v))
	}
	var err error
	switch k {
	case kindString:
		if strings.TrimSpace(s) == "" {
			err = errors.New("must not be empty")
		}
	case kindProviderName:
		err = checkName(s)
	case kindURL:
		err = checkBaseURL(s)
	case kindEnvName:
		err = checkEnvName(s)
	case kindProviderType:
		if s != ProviderOpenAI && s != ProviderAnthropic {
			err = fmt.Errorf("want %q or %q, got %q", ProviderOpenAI, ProviderAnthropic, s)
		}
	case kindSandbox:
		if s != "auto" && s != "required" && s != "off" {
			err = fmt.Errorf("want \"auto\", \"required\" or \"off\", got %q", s)
		}
	case kindWire:
		if s != WireChat && s != WireResponses {
			err = fmt.Errorf("want %q or %q, got %q", WireChat, WireResponses, s)
		}
	case kindStructuredOutput:
		if s != "native" && s != "tool" {
			err = fmt.Errorf("want \"native\" or \"tool\", got %q", s)
		}
	case kindHeaderValue:
		if strings.ContainsAny(s, "\r\n\x00") {
			err = errors.New("header value must not contain line breaks or NUL")
		}
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// parseText converts the text of an environment variable or flag to the
// type a TOML file would give, then normalizes it.
func parseText(k valueKind, s string) (any, error) {
	switch k {
	case kindCount, kindTurns:
		i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want a whole number, got %q", s)
		}
		return normalizeLeaf(k, i)
	case kindUSD, kindRatio:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("want a number, got %q", s)
		}
		return normalizeLeaf(k, f)
	case kindDuration:
		if strings.TrimSpace(s) == "0" {
			return time.Duration(0), nil
		}
	case kindBool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %q", s)
		}
		return b, nil
	}
	return normalizeLeaf(k, s)
}

// tomlType names the TOML type of a decoded value for error messages.
func tomlType(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case int64:
		return "integer " + strconv.FormatInt(x, 10)
	case float64:
		return "float " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case []any:
		return "array"
	case map[string]any:
		return "table"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", v)
}

// tomlKind names the TOML type of a decoded value without its value.
func tomlKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return tomlType(v)
}

// DisplayKey writes a key path the way TOML would: dotted, with parts that
// are not bare keys quoted (prices."gpt-4.1".input).
func DisplayKey(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = p
		if p == "" || strings.IndexFunc(p, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		}) >= 0 {
			parts[i] = strconv.Quote(p)
		}
	}
	return strings.Join(parts, ".")
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
