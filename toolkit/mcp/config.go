package mcp

import (
	"context"
	"net/http"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rubichan/rubichan/toolkit"
)

// Defaults of a server's timeouts.
const (
	DefaultStartupTimeout = 10 * time.Second
	DefaultCallTimeout    = 60 * time.Second
	// DefaultMaxMessageBytes bounds one message a streamable HTTP server
	// sends, while it is read: a JSON response body, or one event of an
	// SSE stream. A real answer is far smaller (the model sees 30 KB of a
	// call's output); 8 MiB decoded costs tens of MB, not gigabytes.
	DefaultMaxMessageBytes = 8 << 20
)

// ServerConfig is one configured server. Exactly one of Command, URL and
// Transport says how to reach it.
type ServerConfig struct {
	Name     string
	Command  string            // stdio: the program
	Args     []string          // stdio: its arguments
	Env      map[string]string // stdio: added to the scrubbed environment; values may hold $NAME or ${NAME}
	URL      string            // streamable HTTP: the endpoint
	Headers  map[string]string // streamable HTTP: values may hold $NAME or ${NAME}; never shown
	Required bool              // the run cannot go on without it
	// StartupTimeout bounds connecting and listing the tools; 0: the default.
	StartupTimeout time.Duration
	// CallTimeout bounds one tool call; 0: the default.
	CallTimeout time.Duration
	// Tools, when not empty, lists the only tool names offered to the model.
	Tools []string
	// Network lets a stdio server open network connections in the
	// sandbox (see [Options.Prepare]); WritableRoots are directories it
	// may write besides the workspace and its TMPDIR (absolute, "~/…" in
	// $HOME, or relative to the workspace). Only a trusted configuration
	// sets them.
	Network       bool
	WritableRoots []string
	// Transport, when set, is used instead of Command or URL: an in-process
	// server (tests, benchmarks). Such a server is never restarted.
	Transport sdk.Transport
}

// Kind returns "stdio", "http" or "in-process".
func (c ServerConfig) Kind() string {
	switch {
	case c.Transport != nil:
		return "in-process"
	case c.URL != "":
		return "http"
	}
	return "stdio"
}

func (c ServerConfig) startupTimeout() time.Duration {
	if c.StartupTimeout > 0 {
		return c.StartupTimeout
	}
	return DefaultStartupTimeout
}

func (c ServerConfig) callTimeout() time.Duration {
	if c.CallTimeout > 0 {
		return c.CallTimeout
	}
	return DefaultCallTimeout
}

// Options is what the runner decides for every server.
type Options struct {
	// Environ is the base environment of stdio servers ("NAME=value"), and
	// where $NAME in env and header values is looked up. It is scrubbed as
	// the bash tool's is ([toolkit.CommandEnv]) with EnvAllow, DropEnv and
	// PathAdd; DropEnv names (the provider keys) are removed from a server's
	// configured env too.
	Environ  []string
	EnvAllow []string
	DropEnv  []string
	PathAdd  []string
	// Dir is the working directory of stdio servers: the workspace root.
	Dir string
	// Reaper, when set, is told about every server process, so its sweeps
	// leave running servers alone.
	Reaper *toolkit.Reaper
	// HTTPClient carries streamable HTTP requests; nil: a default client.
	HTTPClient *http.Client
	// Headers, when set, is called for every streamable HTTP request with
	// the request's context and adds headers through set: the seam where
	// the run adds the W3C traceparent of the span a call runs under,
	// when the user opts in.
	Headers func(ctx context.Context, set func(key, value string))
	// Prepare, when set, is called with each stdio server's command and
	// configuration before it starts: the seam where the OS sandbox wraps
	// it (the run sets it to [toolkit.Sandbox.WrapFor] with the server's
	// Network and WritableRoots unless the sandbox is off).
	Prepare func(cmd *exec.Cmd, cfg ServerConfig) error
	// TempDir, when set, is the TMPDIR of stdio servers: the run's private
	// temporary directory, writable in the sandbox.
	TempDir string
	// StartHint, when set, is added to the reason of a stdio server that
	// could not start: under the sandbox, what is its likely cause and
	// which setting lifts it.
	StartHint func(cfg ServerConfig) string
}

// State is how a server's start-up ended.
type State string

// The states of a server.
const (
	StateReady   State = "ready"
	StateFailed  State = "failed"
	StateTimeout State = "timeout"
)

// Status is one server after start-up, for the init event, `mcp list`
// and `doctor`.
type Status struct {
	Name      string        `json:"name"`
	Transport string        `json:"transport"` // "stdio", "http" or "in-process"
	State     State         `json:"status"`
	Reason    string        `json:"reason,omitempty"` // why it is not ready
	Required  bool          `json:"required"`
	Tools     []ToolInfo    `json:"tools"` // the tools offered to the model
	Startup   time.Duration `json:"-"`
	Notes     []string      `json:"notes,omitempty"` // tools left out or simplified
}

// ToolInfo is one offered tool: the model's name for it and the policy's.
type ToolInfo struct {
	Name   string `json:"name"`   // mcp__SERVER__TOOL
	Policy string `json:"policy"` // SERVER/TOOL
}
