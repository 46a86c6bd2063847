package run

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/toolkit/sandbox"
	"github.com/urfave/cli/v2"
)

// sandboxCommand is `rubichan sandbox`, with its one subcommand `check`.
func sandboxCommand(env environment) *cli.Command {
	return &cli.Command{
		Name:            "sandbox",
		Usage:           "inspect the OS sandbox of shell commands",
		HideHelpCommand: true,
		Action:          requireSubcommand("sandbox", "; try: rubichan sandbox check"),
		Subcommands: []*cli.Command{{
			Name:      "check",
			Usage:     "report what the sandbox achieves on this machine and prove it with a self-test",
			UsageText: "rubichan sandbox check [--sandbox MODE] [--network] [--json] [-C DIR] [--trust-workspace]",
			Description: `Loads the [shell] settings exactly as exec would, reports what this kernel
achieves of them (Landlock ABI; filesystem confined: yes or no; network
blocked, allowed or unblockable), then runs a self-test through the sandbox
helper: a write outside the writable directories and a TCP connection to a
listener on 127.0.0.1, each of which must be blocked when the state says so.

Exit codes: 0 the achieved state meets the settings and the self-test agrees
with it, 1 it does not, 2 a bad flag or configuration.`,
			// It reads the [shell] settings alone: their file and flags.
			Flags: append(configFlagsNamed("config", "sandbox", "network", "allow-all"),
				&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
				&cli.BoolFlag{Name: "trust-workspace", Usage: "use the workspace's [shell] settings", EnvVars: envs("trust-workspace")},
				&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
			),
			Action: func(c *cli.Context) error { return runSandboxCheck(c, env) },
		}},
	}
}

// sandboxReport is the output of `rubichan sandbox check --json`.
type sandboxReport struct {
	sandbox.State
	SelfTest []sandbox.Result `json:"self_test"`
	Problem  string           `json:"problem,omitempty"`
	OK       bool             `json:"ok"`
}

func runSandboxCheck(c *cli.Context, env environment) error {
	lc, err := loadCommandConfig(c, env, "sandbox check")
	if err != nil {
		return err
	}
	st := harness.AchieveSandbox(lc.Shell, env.Env)
	rep := sandboxReport{State: st, SelfTest: []sandbox.Result{}, OK: true}
	if err := st.Unmet(); err != nil {
		rep.Problem, rep.OK = err.Error(), false
	}
	if st.Helper {
		res, err := sandbox.SelfTest(c.Context, "/proc/self/exe", st)
		if err != nil {
			return fmt.Errorf("sandbox check: %w", err)
		}
		rep.SelfTest = res
		for _, r := range res {
			rep.OK = rep.OK && r.OK()
		}
	}
	if err := writeSandboxReport(c.App.Writer, rep, c.Bool("json")); err != nil {
		return exit.StdoutError{Err: err}
	}
	if !rep.OK {
		return exit.Reported{Err: exit.CodeError{Code: exit.Failure, Err: fmt.Errorf("sandbox check: the sandbox does not meet the settings")}}
	}
	return nil
}

// writeSandboxReport prints rep as text or JSON.
func writeSandboxReport(w io.Writer, rep sandboxReport, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	st := rep.State
	landlock := "unavailable"
	if st.Available {
		landlock = fmt.Sprintf("ABI %d", st.ABI)
	}
	fs := "no"
	if st.Filesystem {
		fs = "yes (writes only in the workspace, $TMPDIR, /dev/null and [shell] writable_roots)"
	}
	network := st.Network
	switch {
	case st.Network == sandbox.NetBlocked && st.Isolated:
		network += " (every protocol: commands have a network namespace of their own)"
	case st.Network == sandbox.NetBlocked && st.UDP:
		network += " (TCP and UDP)"
	case st.Network == sandbox.NetBlocked:
		network += " (TCP connect and bind; UDP is not blocked before Landlock ABI 10)"
	}
	caps := "kept (no helper)"
	if st.Helper {
		caps = "all dropped, no_new_privs set"
	}
	namespaces := "none"
	switch {
	case st.Isolated:
		namespaces = "yes (every mount read-only but the writable roots: chmod, chown, utime and setxattr refused outside them)"
	case st.NoIsolation != "":
		namespaces = "no (" + st.NoIsolation + ")"
	}
	lines := [][2]string{
		{"sandbox", string(st.Mode)}, {"landlock", landlock}, {"filesystem", fs},
		{"namespaces", namespaces}, {"network", network}, {"capabilities", caps},
	}
	for _, r := range rep.SelfTest {
		got, verdict := "allowed", "ok"
		if r.Blocked {
			got = "blocked"
		}
		if !r.OK() {
			verdict = "FAIL"
		}
		lines = append(lines, [2]string{"self-test", fmt.Sprintf("%s: %s, %s", r.Name, got, verdict)})
	}
	if rep.Problem != "" {
		lines = append(lines, [2]string{"problem", rep.Problem})
	}
	verdict := "meets the settings"
	if !rep.OK {
		verdict = "does NOT meet the settings"
	}
	lines = append(lines, [2]string{"result", verdict})
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%-13s %s\n", l[0]+":", l[1]); err != nil {
			return err
		}
	}
	return nil
}
