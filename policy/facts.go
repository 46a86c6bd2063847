package policy

// The vocabulary of a decision: the call as the policy sees it (Action,
// Path), what it does (Fact, FactKind) and the verdict (Result).

// FactKind is what a fact is about.
type FactKind uint8

// Kinds of fact.
const (
	// FactCommand is one simple command's argv.
	FactCommand FactKind = iota + 1
	// FactRead is a path read: by a file tool or a `<` redirect.
	FactRead
	// FactWrite is a path written: by a file tool or a `>` redirect.
	FactWrite
	// FactBackground is a job started with `&`.
	FactBackground
	// FactOpaque is a construct the analysis cannot fully read.
	FactOpaque
	// FactMCP is a call of an MCP server's tool, named "SERVER/TOOL".
	FactMCP
)

// String returns "command", "read", "write", "background", "opaque" or "mcp".
func (k FactKind) String() string {
	switch k {
	case FactCommand:
		return "command"
	case FactRead:
		return "read"
	case FactWrite:
		return "write"
	case FactBackground:
		return "background"
	case FactOpaque:
		return "opaque"
	case FactMCP:
		return "mcp"
	}
	return "unknown"
}

// Rule names the package uses for decisions no [[rule]] made.
const (
	RuleDefault = "defaults.decision"
	RuleOpaque  = "opaque"
	RuleGuard   = "guard"
	RuleSession = "session approval"
	// RuleSessionDeny decides a fact a person denied for the rest of a
	// line-mode session ([Session.DenyAlways]).
	RuleSessionDeny = "session denial"
	// RuleAllowAll allows what no kept rule or guard refuses under
	// --allow-all ([Policy.WithAllowAll]).
	RuleAllowAll = "allow-all"
	// RulePlain allows a plain program, whose effects are judged on their
	// own ([ShellOptions.PlainPrograms]).
	RulePlain    = "shell.plain_programs"
	ruleToolsFmt = "tools.%s"
)

// Path is one path a file tool call touches, in the form the runner's
// workspace gives: cleaned, slash-separated, workspace-relative inside the
// workspace, absolute outside it.
type Path struct {
	// Requested is the path as the model asked for it.
	Requested string
	// Resolved is the path after following symlinks; "" or equal to
	// Requested when no link was involved.
	Resolved string
}

// Action is one tool call as the policy sees it.
type Action struct {
	// Class is the tool class: read, write or shell.
	Class Class
	// Paths are the paths a read or write call touches.
	Paths []Path
	// Command is the shell command line of a shell call.
	Command string
	// Name is the "SERVER/TOOL" name of an mcp call.
	Name string
	// Dir is the shell call's working directory: workspace-relative in
	// slash form, or absolute (inside the workspace the policy is bound to
	// with [Policy.InWorkspace], or named by an absolute rule); "" means the
	// workspace root. Relative redirect targets are joined to it.
	Dir string
	// Resolve, when set, resolves a redirect target (workspace-relative or
	// absolute, as above) through symlinks the way the file tools do, so a
	// redirect through a link is judged by its target too. An error denies
	// the redirect.
	Resolve func(path string) (string, error)
	// Links, when set, returns the number of hard links of the existing
	// file a path (as in Paths, or a redirect target as for Resolve) names
	// after symlinks; 0 or 1 when it does not exist or cannot be told.
	// A multiply-linked file is judged by [Policy.linkFact].
	Links func(path string) int
	// Env holds the values the command will see for the variables the
	// bash tool sets (HOME, PWD, TMPDIR, USER): an expansion of one of
	// them is judged with its value. An expansion of any other variable is
	// opaque. The policy never reads its own process's environment.
	Env map[string]string
	// Files, when set, lists every file and directory beneath a directory
	// (named as for Resolve) as it is when the call is judged, each named
	// as the directory joined with its path beneath it; ok is false when
	// the listing is incomplete (an error, or too many to judge). A
	// recursive search is then judged by the files it would read, and a
	// removal (rm -r) by the files it would remove; without it, by what
	// a rule could match beneath the directory.
	Files func(dir string) (paths []string, ok bool)
}

// Fact is one thing a call does, with its decision.
type Fact struct {
	// Kind is what the fact is about.
	Kind FactKind
	// Value is the command line, the path, or what is opaque.
	Value string
	// Decision is the fact's decision.
	Decision Decision
	// Rule is the id of the rule that decided it, or one of [RuleDefault],
	// "tools.CLASS", [RuleOpaque], [RuleGuard], [RuleSession],
	// "shell.redirects" or "shell.background".
	Rule string
	// Reason says why, for people and for the model.
	Reason string
	// Plain is, for a FactCommand, that the program is a plain one: all
	// it does to files is in the call's other facts.
	Plain bool

	exact bool // a session approval may apply to it
}

// String renders the fact as "kind: value".
func (f Fact) String() string { return f.Kind.String() + ": " + f.Value }

// Result is the decision for one call: its strictest fact, and every fact.
type Result struct {
	// Decision is the strictest decision of the facts.
	Decision Decision
	// Rule, Fact and Reason come from the fact that made the decision (the
	// first of the strictest facts).
	Rule   string
	Fact   string
	Reason string
	// Facts are all the facts, in the order the analysis found them.
	Facts []Fact
	// Remedy, for a refusal that no --allow rule can lift, says so in
	// words and why, and names the alternatives ("no rule can allow
	// this: …"); "" when the call is allowed or narrow --allow rules
	// could allow it ([Policy.AllowRules] finds them).
	Remedy string
}

// ReadOnly reports whether the call only reads, as far as the analysis
// sees: every fact is a read, or a plain program (whose file effects are
// facts of their own). A program the analysis cannot see through, a
// write, a background job, an opaque construct or an MCP call is not.
func (r Result) ReadOnly() bool {
	for _, f := range r.Facts {
		if f.Kind != FactRead && (f.Kind != FactCommand || !f.Plain) {
			return false
		}
	}
	return len(r.Facts) > 0
}
