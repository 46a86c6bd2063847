package toolkit

import (
	"context"
	"encoding/json"
)

// Tool is one capability the model can call.
//
// Implementations are safe for concurrent use. Effects must not change
// anything; Run performs the call. Both receive the call's arguments exactly
// as the model sent them: arguments that do not decode are reported by
// Effects as an error and by Run as an error [Result].
type Tool interface {
	// Spec describes the tool to the model.
	Spec() Spec
	// Effects reports what a call with args would read, write or execute.
	// A non-nil error means the call cannot run at all (bad arguments, a path
	// outside every root); its message is meant for the model.
	Effects(args json.RawMessage) (Effects, error)
	// Run performs the call. Problems the model can fix come back as a
	// Result with IsError set and a nil error; a non-nil error means the
	// tool's infrastructure failed and the run should end.
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Spec is a tool's name, its description for the model and the JSON schema
// of its arguments.
type Spec struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// EffectKind is what a call does to the things it names.
type EffectKind uint8

// The kinds of effect a tool call can have.
const (
	EffectRead EffectKind = iota + 1
	EffectWrite
	EffectExecute
	// EffectMCP is a call of a tool an MCP server provides; what it does
	// is the server's business, so the policy judges it by its name.
	EffectMCP
)

// String returns "read", "write", "execute" or "mcp".
func (k EffectKind) String() string {
	switch k {
	case EffectRead:
		return "read"
	case EffectWrite:
		return "write"
	case EffectExecute:
		return "execute"
	case EffectMCP:
		return "mcp"
	}
	return "unknown"
}

// PathRef names one file or directory a call touches. Both fields are
// cleaned and slash-separated: relative to the workspace root when inside
// it, absolute when inside an extra root outside the workspace.
type PathRef struct {
	// Requested is the path the model asked for.
	Requested string
	// Resolved is the path after following symlinks inside the roots; it
	// equals Requested when no link was involved or the path does not exist.
	Resolved string
}

// Effects describes what one call would touch, for the policy.
type Effects struct {
	Kind    EffectKind
	Paths   []PathRef // file tools: the paths read or written
	Command string    // EffectExecute: the command line as given
	Dir     string    // EffectExecute: the working directory
	Tool    string    // EffectMCP: the server's tool as "SERVER/TOOL"
	// ReadOnlyHint is, for EffectMCP, the server's claim that the tool
	// only reads (its readOnlyHint annotation). It is the server's word:
	// the caller decides whether that server is trusted with it.
	ReadOnlyHint bool
	// Summary is the gist of the decoded arguments for the activity line
	// and events: the command, else the pattern and path. It comes from
	// the same decoding the call runs with, never from a second parse.
	Summary string
}

// Result is the outcome of one call as the model will see it, plus
// metadata for the runner's output and audit trail.
type Result struct {
	Content string
	IsError bool
	Meta    Meta
}

// Meta is what the runner may show or record about a call beyond its content.
type Meta struct {
	ExitCode  *int     // bash: the command's exit status, nil when it did not exit
	Diff      string   // write, edit: unified diff of the change, capped
	Changed   []string // write, edit: workspace paths the call modified
	Truncated bool     // the content was cut by an output cap
	Skipped   int      // grep, glob: files skipped by the filter callback
}
