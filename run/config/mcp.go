package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// MCP is the [mcp] table.
type MCP struct {
	// Servers are the configured servers by name ([mcp.servers.NAME]).
	Servers map[string]MCPServer `koanf:"servers"`
}

// MCPServer is one [mcp.servers.NAME] entry: a stdio server (command,
// args, env) or a streamable HTTP one (url, headers).
type MCPServer struct {
	Command string            `koanf:"command"`
	Args    []string          `koanf:"args"`
	Env     map[string]string `koanf:"env"`
	URL     string            `koanf:"url"`
	// Headers are sent with every request; values may name environment
	// variables as $NAME or ${NAME}. They are never shown.
	Headers map[string]string `koanf:"headers"`
	// Required makes a run that cannot start the server end with exit 2
	// before any model request.
	Required bool `koanf:"required"`
	// StartupTimeout bounds the start (connect and list the tools); 0:
	// 10 s.
	StartupTimeout time.Duration `koanf:"startup_timeout"`
	// CallTimeout bounds one tool call; 0: 60 s.
	CallTimeout time.Duration `koanf:"call_timeout"`
	// Tools, when not empty, lists the only tools offered to the model.
	Tools []string `koanf:"tools"`
	// Network lets a stdio server open network connections inside the
	// sandbox; WritableRoots are directories it may write there besides
	// the workspace and its TMPDIR ("~/…" is in $HOME; relative ones are
	// in the workspace). npx needs both: network = true, writable_roots =
	// ["~/.npm"].
	Network       bool     `koanf:"network"`
	WritableRoots []string `koanf:"writable_roots"`
}

// mcpSchema is the [mcp] table.
func mcpSchema() *field {
	server := table(
		"command", leaf(kindString),
		"args", leaf(kindStringList),
		"env", &field{kind: kindMap, elem: leaf(kindEnvValue), name: checkEnvName},
		"url", leaf(kindURL),
		"headers", &field{kind: kindMap, elem: leaf(kindHeaderValue), name: checkHeaderName},
		"required", leaf(kindBool),
		"startup_timeout", leaf(kindDuration),
		"call_timeout", leaf(kindDuration),
		"tools", leaf(kindStringList),
		"network", leaf(kindBool),
		"writable_roots", leaf(kindStringList),
	)
	return table("servers", &field{kind: kindMap, elem: server, name: CheckMCPServerName})
}

// CheckMCPServerName accepts a server name: letters, digits, '-' and '_',
// at most 32 characters, so that mcp__NAME__TOOL stays a valid tool name.
func CheckMCPServerName(s string) error {
	if s == "" || len(s) > 32 || strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return fmt.Errorf("MCP server name %q: want 1 to 32 letters, digits, '-' or '_'", s)
	}
	return nil
}

func normalizeMCPLeaf(k valueKind, v any) (any, error) {
	if k == kindEnvValue {
		s, ok := v.(string)
		if !ok || strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("want a string without NUL, got %s", tomlType(v))
		}
		return s, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of strings, got %s", tomlType(v))
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok || s == "" || strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("want non-empty strings without NUL, got %s", tomlType(it))
		}
		out = append(out, s)
	}
	return out, nil
}

// checkMCP checks that every server names exactly one of command and url.
func (s *stack) checkMCP() error {
	for _, name := range s.ko.MapKeys("mcp" + pathSep + "servers") {
		key := func(k string) string { return strings.Join([]string{"mcp", "servers", name, k}, pathSep) }
		cmd, url := s.ko.Exists(key("command")), s.ko.Exists(key("url"))
		if cmd == url {
			return s.missing([]string{"mcp", "servers", name}, "command", "an MCP server needs either command (stdio) or url (streamable HTTP)")
		}
		for _, k := range [][2]string{{"args", "command"}, {"env", "command"}, {"network", "command"}, {"writable_roots", "command"}, {"headers", "url"}} {
			if s.ko.Exists(key(k[0])) && !s.ko.Exists(key(k[1])) {
				o := s.origin([]string{"mcp", "servers", name, k[0]})
				return &Error{File: o.Source, Line: o.Line, Key: DisplayKey([]string{"mcp", "servers", name, k[0]}),
					Err: fmt.Errorf("%s belongs to a server with %s", k[0], k[1])}
			}
		}
	}
	return nil
}

// mcpJSONServer is one entry of the "mcpServers" JSON other agents use.
type mcpJSONServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// network and writable_roots: as in [MCPServer], spelled the same.
	Network       bool     `json:"network"`
	WritableRoots []string `json:"writable_roots"`
}

// ParseMCPJSON reads the {"mcpServers": {NAME: {...}}} file that other
// agents use (.mcp.json, --mcp-config): command, args, env for stdio,
// url and headers (type "http" or "streamable-http") for HTTP. Unknown
// keys of a server are ignored, as other agents write their own; a
// server of type "sse" is refused. Errors are [*Error] naming file and key.
func ParseMCPJSON(file string, data []byte) (map[string]MCPServer, error) {
	var doc struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	fail := func(key string, err error) error { return &Error{File: file, Key: key, Err: err} }
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fail("", fmt.Errorf("not JSON of the form {\"mcpServers\": {...}}: %v", err))
	}
	if doc.Servers == nil {
		return nil, fail("mcpServers", errors.New("missing"))
	}
	names := make([]string, 0, len(doc.Servers))
	for n := range doc.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make(map[string]MCPServer, len(names))
	for _, n := range names {
		key := "mcpServers." + n
		if err := CheckMCPServerName(n); err != nil {
			return nil, fail(key, err)
		}
		var js mcpJSONServer
		if err := json.NewDecoder(bytes.NewReader(doc.Servers[n])).Decode(&js); err != nil {
			return nil, fail(key, err)
		}
		srv, err := js.server()
		if err != nil {
			return nil, fail(key, err)
		}
		out[n] = srv
	}
	return out, nil
}

func (js mcpJSONServer) server() (MCPServer, error) {
	switch js.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	default:
		return MCPServer{}, fmt.Errorf("type %q is not supported (want stdio or http)", js.Type)
	}
	if (js.Command == "") == (js.URL == "") {
		return MCPServer{}, errors.New("want either command (stdio) or url (streamable HTTP)")
	}
	if js.URL != "" {
		if err := checkBaseURL(js.URL); err != nil {
			return MCPServer{}, fmt.Errorf("url: %w", err)
		}
		for h := range js.Headers {
			if err := checkHeaderName(h); err != nil {
				return MCPServer{}, fmt.Errorf("headers: %w", err)
			}
		}
	}
	for k := range js.Env {
		if err := checkEnvName(k); err != nil {
			return MCPServer{}, fmt.Errorf("env: %w", err)
		}
	}
	if js.URL != "" && (js.Network || len(js.WritableRoots) > 0) {
		return MCPServer{}, errors.New("network and writable_roots belong to a server with command (stdio)")
	}
	for _, r := range js.WritableRoots {
		if r == "" || strings.IndexByte(r, 0) >= 0 {
			return MCPServer{}, errors.New("writable_roots: want non-empty strings without NUL")
		}
	}
	return MCPServer{Command: js.Command, Args: js.Args, Env: js.Env, URL: js.URL, Headers: js.Headers,
		Network: js.Network, WritableRoots: js.WritableRoots}, nil
}
