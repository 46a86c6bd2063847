package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// The states of a doctor check. Only a problem makes `rubichan doctor`
// exit 1; a warning is something that works but may surprise.
const (
	StatusOK      = "ok"
	StatusWarning = "warning"
	StatusProblem = "problem"
	StatusSkipped = "skipped"
	StatusInfo    = "info"
)

// Check is one line of `rubichan doctor`: what was checked, what
// was found and, for a problem or a warning, how to fix it.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Report is the output of `rubichan doctor --json`.
type Report struct {
	OK       bool    `json:"ok"`
	Problems int     `json:"problems"`
	Checks   []Check `json:"checks"`
	// Config lists the files read and the values they (or RUBICHAN_*
	// variables and flags) set; keys and credentials redacted.
	Config ConfigSet `json:"config"`
}

// ConfigSet is what the configuration check found.
type ConfigSet struct {
	Files []string            `json:"files"`
	Set   []config.ShownValue `json:"set"`
}

// Options are what `rubichan doctor` checks, as the command line gave
// them.
type Options struct {
	// Config is the configuration as exec would load it; nil when it did
	// not load, and then ConfigErr says why.
	Config    *config.Loaded
	ConfigErr error
	// Env is the process environment the checks read.
	Env harness.Env
	// Dir is the workspace root (-C); "": the current directory.
	Dir string
	// Policy is the policy as a run would load it.
	Policy harness.PolicySource
	// TrustWorkspace: the workspace's .mcp.json is started too.
	TrustWorkspace bool
	// MCP is --mcp-config and --no-mcp, as exec takes them.
	MCP harness.MCPChoice
	// Skills are --skills and --no-skills.
	Skills harness.SkillSettings
	// SessionDir is --session-dir; "": the default session directory.
	SessionDir string
	// Offline: the provider is not contacted.
	Offline bool
	// JSON: the report is one JSON object instead of text.
	JSON bool
	// Stdout receives the report; Stdout and Stderr are also what the
	// terminal check reports on.
	Stdout, Stderr io.Writer
	// ProbeMCP starts servers in the workspace dir as a run would (its
	// sandbox and reaper), reports each, and stops them; an error says the
	// run's tools could not start.
	ProbeMCP func(ctx context.Context, servers []mcp.ServerConfig, dir string) ([]mcp.Status, error)
}

// state is what the checks share: the options, the configuration and
// the provider as exec would resolve them.
type state struct {
	opts  Options
	lc    *config.Loaded // nil when the configuration did not load
	lcErr error
	rp    config.ResolvedProvider // valid when rpErr is nil or keyMissing
	rpErr error
	// keyMissing: the provider is known but its key variable is unset.
	keyMissing bool
}

// step checks one thing and reports it; a step may report several
// lines, or none when it does not apply.
type step struct {
	name string
	run  func(context.Context, *state) []Check
}

// steps are the checks of `rubichan doctor`, in the order they are
// shown. A new concern adds its step here.
func steps() []step {
	return []step{
		{"config", checkConfig},
		{"provider", checkProvider},
		{"api key", checkKey},
		{"reachable", checkReachable},
		{"policy", checkPolicy},
		{"sessions", checkSessions},
		{"git", checkGit},
		{"terminal", checkTerminal},
		{"sandbox", checkSandbox},
		{"mcp", checkMCP},
		{"skills", checkSkills},
		{"github", checkGitHub},
	}
}

// Run runs every check and writes the report to opts.Stdout. A problem
// found is an [exit.Reported] error with exit code 1; a failed write
// is an [exit.StdoutError].
func Run(ctx context.Context, opts Options) error {
	st := &state{opts: opts, lc: opts.Config, lcErr: opts.ConfigErr}
	if st.lcErr == nil {
		st.resolve()
	}
	rep := Report{OK: true, Checks: []Check{}, Config: ConfigSet{Files: []string{}, Set: []config.ShownValue{}}}
	for _, step := range steps() {
		for _, ch := range step.run(ctx, st) {
			if ch.Name == "" {
				ch.Name = step.name
			}
			if ch.Status == StatusProblem {
				rep.OK = false
				rep.Problems++
			}
			rep.Checks = append(rep.Checks, ch)
		}
	}
	if st.lc != nil {
		rep.Config = configSet(st.lc, st.rp, st.rpErr)
	}
	var err error
	if opts.JSON {
		err = rep.WriteJSON(opts.Stdout)
	} else {
		err = rep.WriteText(opts.Stdout)
	}
	if err != nil {
		return exit.StdoutError{Err: err}
	}
	if !rep.OK {
		return exit.Reported{Err: exit.CodeError{Code: exit.Failure, Err: fmt.Errorf("doctor: %d problems", rep.Problems)}}
	}
	return nil
}

// resolve resolves the provider as exec would; when only its key is
// missing, it resolves it once more as if the key were set, so that the
// provider, model and base URL can still be checked.
func (st *state) resolve() {
	env := st.opts.Env
	st.rp, st.rpErr = harness.ResolveProvider(st.lc, env.LookupEnv)
	if st.rpErr == nil || st.lc.Provider == "" {
		return
	}
	keyVars := harness.ProviderKeyVars(st.lc)
	// An unset key is the only failure a set key would cure.
	fake := func(k string) (string, bool) {
		for _, kv := range keyVars {
			if v, _ := env.LookupEnv(k); k == kv && strings.TrimSpace(v) == "" {
				return "set", true
			}
		}
		return env.LookupEnv(k)
	}
	if rp, err := harness.ResolveProvider(st.lc, fake); err == nil {
		st.rp, st.keyMissing = rp.WithAPIKey(""), true
	}
}

// configSet lists the configuration values that are not defaults.
func configSet(lc *config.Loaded, rp config.ResolvedProvider, rpErr error) ConfigSet {
	show := config.NewShow(lc, rp, rpErr, false, agent.Shown)
	out := ConfigSet{Files: show.Files, Set: []config.ShownValue{}}
	for _, v := range show.Values {
		if v.Origin != "default" {
			out.Set = append(out.Set, v)
		}
	}
	return out
}

// WriteJSON prints the report as one indented JSON object, its
// terminal controls escaped.
func (rep Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(sink.NewJSONShown(w))
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText prints one line per check ("✓ name  detail"), the fix
// under each problem and warning, and a closing verdict.
func (rep Report) WriteText(w io.Writer) error {
	var b strings.Builder
	marks := map[string]string{StatusOK: "✓", StatusWarning: "!", StatusProblem: "✗", StatusSkipped: "-", StatusInfo: "·"}
	for _, ch := range rep.Checks {
		fmt.Fprintf(&b, "%s %-10s %s\n", marks[ch.Status], agent.Shown(ch.Name), agent.Shown(ch.Detail))
		if ch.Fix != "" {
			fmt.Fprintf(&b, "  %-10s fix: %s\n", "", agent.Shown(ch.Fix))
		}
	}
	switch rep.Problems {
	case 0:
		b.WriteString("no problems found\n")
	case 1:
		b.WriteString("1 problem found\n")
	default:
		fmt.Fprintf(&b, "%d problems found\n", rep.Problems)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
