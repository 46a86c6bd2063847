package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/urfave/cli/v2"
)

// The states of a doctor check. Only a problem makes `rubichan doctor`
// exit 1; a warning is something that works but may surprise.
const (
	checkOK      = "ok"
	checkWarning = "warning"
	checkProblem = "problem"
	checkSkipped = "skipped"
	checkInfo    = "info"
)

// doctorCheck is one line of `rubichan doctor`: what was checked, what
// was found and, for a problem or a warning, how to fix it.
type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// doctorReport is the output of `rubichan doctor --json`.
type doctorReport struct {
	OK       bool          `json:"ok"`
	Problems int           `json:"problems"`
	Checks   []doctorCheck `json:"checks"`
	// Config lists the files read and the values they (or RUBICHAN_*
	// variables and flags) set; keys and credentials redacted.
	Config doctorConfig `json:"config"`
}

// doctorConfig is what the configuration check found.
type doctorConfig struct {
	Files []string            `json:"files"`
	Set   []config.ShownValue `json:"set"`
}

// doctorState is what the checks share: the command line, the
// configuration and the provider as exec would resolve them.
type doctorState struct {
	c       *cli.Context
	env     environment
	offline bool
	lc      *config.Loaded // nil when the configuration did not load
	lcErr   error
	rp      config.ResolvedProvider // valid when rpErr is nil or keyMissing
	rpErr   error
	// keyMissing: the provider is known but its key variable is unset.
	keyMissing bool
}

// doctorStep checks one thing and reports it; a step may report several
// lines, or none when it does not apply.
type doctorStep struct {
	name string
	run  func(context.Context, *doctorState) []doctorCheck
}

// doctorSteps are the checks of `rubichan doctor`, in the order they are
// shown. A new concern adds its step here.
func doctorSteps() []doctorStep {
	return []doctorStep{
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
		{"github", checkGitHub},
	}
}

const doctorDescription = `Checks the setup a run would use, before a paid run starts: the config
files read and what they set; the provider, model and base URL; the API key
(present or not, never printed); whether the provider answers (one cheap
request, 5 s at most; --offline skips it); the policy and its self-tests; the
session directory; git; terminal and color detection; the sandbox; the MCP
servers (each started, reported ready or not, and stopped); under
GitHub Actions, the job summary file. Each problem comes with its fix.

Examples:
   rubichan doctor
   rubichan doctor --offline --policy ci.toml
   rubichan doctor --json | jq -r '.checks[] | select(.status=="problem") | .fix'

Exit codes: 0 no problem found, 1 a problem (each printed with its fix),
2 a bad flag.`

// doctorCommand is `rubichan doctor`.
func doctorCommand(env environment) *cli.Command {
	flags := append(policyFlags(""), configFlags()...)
	flags = append(flags,
		&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
		&cli.StringFlag{Name: "session-dir", Usage: "check this session `DIR` instead of the default", EnvVars: envs("session-dir"), TakesFile: true},
		&cli.BoolFlag{Name: "offline", Usage: "do not contact the provider"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
	)
	return &cli.Command{
		Name:        "doctor",
		Usage:       "check the configuration, key, provider, policy and environment a run would use",
		UsageText:   "rubichan doctor [--json] [--offline] [-C DIR] [exec's policy, model, limit and session flags]",
		Description: doctorDescription,
		Flags:       flags,
		Action:      func(c *cli.Context) error { return runDoctor(c, env) },
	}
}

func runDoctor(c *cli.Context, env environment) error {
	if c.NArg() > 0 {
		return usagef("doctor takes no arguments")
	}
	st := &doctorState{c: c, env: env, offline: c.Bool("offline")}
	st.lc, st.lcErr = loadCommandConfig(c, env, "doctor")
	if st.lcErr == nil {
		st.resolve()
	}
	rep := doctorReport{OK: true, Checks: []doctorCheck{}, Config: doctorConfig{Files: []string{}, Set: []config.ShownValue{}}}
	for _, step := range doctorSteps() {
		for _, ch := range step.run(c.Context, st) {
			if ch.Name == "" {
				ch.Name = step.name
			}
			if ch.Status == checkProblem {
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
	if c.Bool("json") {
		err = writeDoctorJSON(c.App.Writer, rep)
	} else {
		err = writeDoctorText(c.App.Writer, rep)
	}
	if err != nil {
		return stdoutError{Err: err}
	}
	if !rep.OK {
		return reportedError{Err: exit.CodeError{Code: exit.Failure, Err: fmt.Errorf("doctor: %d problems", rep.Problems)}}
	}
	return nil
}

// resolve resolves the provider as exec would; when only its key is
// missing, it resolves it once more as if the key were set, so that the
// provider, model and base URL can still be checked.
func (st *doctorState) resolve() {
	st.rp, st.rpErr = resolveProvider(st.lc, st.env.LookupEnv)
	if st.rpErr == nil || st.lc.Provider == "" {
		return
	}
	keyVars := providerKeyVars(st.lc)
	// An unset key is the only failure a set key would cure.
	fake := func(k string) (string, bool) {
		for _, kv := range keyVars {
			if v, _ := st.env.LookupEnv(k); k == kv && strings.TrimSpace(v) == "" {
				return "set", true
			}
		}
		return st.env.LookupEnv(k)
	}
	if rp, err := resolveProvider(st.lc, fake); err == nil {
		st.rp, st.keyMissing = rp.WithAPIKey(""), true
	}
}

// configSet lists the configuration values that are not defaults.
func configSet(lc *config.Loaded, rp config.ResolvedProvider, rpErr error) doctorConfig {
	show := config.NewShow(lc, rp, rpErr, false, shown)
	out := doctorConfig{Files: show.Files, Set: []config.ShownValue{}}
	for _, v := range show.Values {
		if v.Origin != "default" {
			out.Set = append(out.Set, v)
		}
	}
	return out
}

func writeDoctorJSON(w io.Writer, rep doctorReport) error {
	enc := json.NewEncoder(newJSONShown(w))
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// writeDoctorText prints one line per check ("✓ name  detail"), the fix
// under each problem and warning, and a closing verdict.
func writeDoctorText(w io.Writer, rep doctorReport) error {
	var b strings.Builder
	marks := map[string]string{checkOK: "✓", checkWarning: "!", checkProblem: "✗", checkSkipped: "-", checkInfo: "·"}
	for _, ch := range rep.Checks {
		fmt.Fprintf(&b, "%s %-10s %s\n", marks[ch.Status], shown(ch.Name), shown(ch.Detail))
		if ch.Fix != "" {
			fmt.Fprintf(&b, "  %-10s fix: %s\n", "", shown(ch.Fix))
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
