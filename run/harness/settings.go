package harness

import (
	"github.com/rubichan/rubichan/run/cassette"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/structured"
)

// Settings are the resolved settings of one run: what the command layer
// read from its flags, environment variables and configuration files,
// less what only the sinks need (sink.Options) and what only parsing
// needs. The provider's key travels inside Provider, which never prints
// it; nothing else holds it.
type Settings struct {
	// Provider is the resolved provider: its name, model, base URL, key
	// variable (KeyEnv) and, unprinted, its key.
	Provider config.ResolvedProvider
	// Config is the layered configuration; nil when none was loaded.
	Config *config.Loaded

	Policy PolicySettings
	// OnAsk is --on-ask: "", "deny", "abort" or "defer".
	OnAsk string
	// Dir is the absolute workspace root.
	Dir string

	Input  InputSettings
	System SystemSettings
	// PassEnv names the variables bash gets although they look secret.
	PassEnv []string
	MCP     MCPChoice
	Skills  SkillSettings

	Subqueries SubquerySettings
	// NoCompact is --no-compact.
	NoCompact bool
	// Quiet is --quiet: no session notes on stderr either.
	Quiet bool
	// Verbose is --verbose: the sandbox's notice too.
	Verbose bool

	Session SessionSettings
	Traffic TrafficSettings
	Patch   PatchSettings
	// JSONSchema is --json-schema, compiled; nil without one.
	JSONSchema *structured.Schema
	// JSONSchemaRetries is --json-schema-retries.
	JSONSchemaRetries int
	// LineMode says a person answers at a terminal (chat): the approver
	// keeps the person's session answers.
	LineMode bool
}

// Limits are the run's limits, from the configuration; none when no
// configuration was loaded.
func (s Settings) Limits() config.Limits {
	if s.Config == nil {
		return config.Limits{}
	}
	return s.Config.Limits
}

// CompactAt is the configuration's compact_at; 0 (the default) when no
// configuration was loaded.
func (s Settings) CompactAt() float64 {
	if s.Config == nil {
		return 0
	}
	return s.Config.CompactAt
}

// PolicySettings say where the run's policy comes from.
type PolicySettings struct {
	File           string   // --policy; "" for none
	Allow, Deny    []string // --allow, --deny rules, CLASS:PATTERN
	TrustWorkspace bool     // --trust-workspace
}

// InputSettings say where the first user message comes from.
type InputSettings struct {
	NoStdin    bool     // --no-stdin
	PromptFile string   // --prompt-file
	Args       []string // the prompt's arguments
}

// SystemSettings shape the system prompt.
type SystemSettings struct {
	Replace        string // --system-prompt
	Append         string // --append-system-prompt
	NoContextFiles bool   // --no-context-files
}

// MCPChoice is what the flags say about MCP servers.
type MCPChoice struct {
	ConfigFile string // --mcp-config, absolute; "" for none
	Off        bool   // --no-mcp
}

// SubquerySettings say whether the run serves `rubichan query`.
type SubquerySettings struct {
	Off      bool // --no-subqueries: no socket
	Announce bool // --subqueries: the system prompt tells of them without a spill
}

// SessionSettings are the session flags.
type SessionSettings struct {
	Dir         string   // --session-dir; "": the XDG state directory
	Off         bool     // --no-session
	ID          string   // --session-id
	File        string   // --session-file
	Resume      string   // --resume ID|PATH
	Continue    bool     // --continue
	Fork        bool     // --fork
	Approve     []string // --approve CALL_ID|all
	DenyPending bool     // --deny-pending
}

// TrafficSettings say what the run records or replays.
type TrafficSettings struct {
	Record     string             // --record: cassette file to write; "": none
	ReplayFile string             // --replay: the cassette's file, for messages
	Mode       cassette.Mode      // --replay-mode
	Cassette   *cassette.Cassette // loaded from ReplayFile; nil: no replay
}

// PatchSettings are --patch's.
type PatchSettings struct {
	Dest    string // a file, "-" for stdout, "" for none
	MaxSize int64  // --patch-max-size: bound of the plain copy outside git
}
