package acp

import (
	"context"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/harness"
)

// Opener opens one session's engine in a workspace: the command layer's
// assembly of a run (configuration, policy, sandbox, tools and MCP
// servers, session log, loop), with the process's flags and environment.
type Opener func(ctx context.Context, o OpenOptions) (Engine, error)

// OpenOptions is what a session/new brings to its engine.
type OpenOptions struct {
	// Cwd is the workspace the client sent: an absolute directory, which
	// the engine confines its tools to as exec does its workspace.
	Cwd string
	// MCPServers are the servers the client passes, started like the
	// configured ones, under the same trust and sandbox rules.
	MCPServers []MCPServer
	// Emit receives every event of the session's runs.
	Emit func(agent.Event)
	// Resume, when set, is the id of the rubichan session the engine
	// continues (session/load, session/resume): its conversation is the
	// engine's history.
	Resume string
	// Asker returns the asker of the calls the policy marks "ask", given
	// the session's approver (whose session records "always" answers).
	Asker func(ap *harness.Approver) agent.Asker
}

// MCPServer is an MCP server the client passes: a stdio server (Command)
// or a streamable HTTP one (URL).
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// Engine is one ACP session's engine: a conversation that runs once per
// prompt, as line mode runs once per line.
type Engine interface {
	// ID is the session's id: its session log's, or one of its own.
	ID() string
	// Prompt runs the engine on text to the end of its run and returns
	// the run's error; ctx ending stops it as Ctrl-C stops a line.
	Prompt(ctx context.Context, text string) error
	// Usage is the session's context window and its cost so far.
	Usage() Usage
	// Models is the session's model and the models it may switch to.
	Models() (current string, choices []string)
	// SetModel switches the model of the next requests, as line mode's
	// /model does; an error says why it cannot.
	SetModel(name string) error
	// History is the conversation a resumed engine continues; nil for a
	// new one.
	History() []llm.Message
	// Close ends the session: its MCP servers, session log and sandbox.
	Close() error
}

// Usage is what a usage_update reports beyond the tokens in context.
type Usage struct {
	Window    int64   // the model's context window in tokens; 0: unknown
	CostUSD   float64 // the session's cost so far, when CostKnown
	CostKnown bool
}

// SessionInfo is one of rubichan's sessions as session/list shows it.
type SessionInfo struct {
	ID        string
	Cwd       string // its workspace
	Title     string // its first prompt, shortened
	UpdatedAt string // RFC 3339
}

// Lister lists the sessions of a workspace ("" for all), newest first.
type Lister func(cwd string) ([]SessionInfo, error)
