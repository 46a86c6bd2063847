package run

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit/mcp"
	"github.com/urfave/cli/v2"
)

// mcpCommand is `rubichan mcp`, with its one subcommand `list`.
func mcpCommand(env environment) *cli.Command {
	// The configuration flags that change which servers start and how:
	// its file, the provider (whose key the servers do not get), the
	// sandbox they run in; a run's limits, model and --verify are not read.
	flags := append(configFlagsNamed("config", "provider", "sandbox", "network"), policyFlags("")...)
	flags = append(flags, mcpFlags("")...)
	flags = append(flags,
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
		&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
	)
	return &cli.Command{
		Name:            "mcp",
		Usage:           "inspect the configured MCP servers",
		HideHelpCommand: true,
		Action:          requireSubcommand("mcp", "; try: rubichan mcp list"),
		Subcommands: []*cli.Command{{
			Name:      "list",
			Usage:     "start the configured MCP servers and show their status, tools and the policy's decision for each tool",
			UsageText: "rubichan mcp list [--json] [--mcp-config FILE] [--no-mcp] [--policy FILE] [--allow R] [--deny R] [--trust-workspace] [-C DIR]",
			Description: `Starts the servers exec would start ([mcp.servers] in the configuration,
the workspace's .mcp.json and an --mcp-config file inside the workspace with
--trust-workspace, another --mcp-config), waits until
each is ready, failed or timed out, shows its tools as the model sees them
(mcp__SERVER__TOOL) with the policy's decision for each (SERVER/TOOL), and
stops them.

Exit codes: 0 every required server is ready, 1 a required server is not,
2 a bad flag, configuration or policy.`,
			Flags:  flags,
			Action: func(c *cli.Context) error { return runMCPList(c, env) },
		}},
	}
}

// mcpListJSON is the output of `rubichan mcp list --json`.
type mcpListJSON struct {
	Servers []mcpServerJSON `json:"servers"`
	OK      bool            `json:"ok"` // every required server is ready
}

type mcpServerJSON struct {
	mcp.Status
	Tools []mcpToolJSON `json:"tools"`
}

type mcpToolJSON struct {
	mcp.ToolInfo
	Decision string `json:"decision"` // allow, ask or deny
	Rule     string `json:"rule"`
}

func runMCPList(c *cli.Context, env environment) error {
	lc, err := loadCommandConfig(c, env, "mcp list")
	if err != nil {
		return err
	}
	dir, _ := filepath.Abs(c.String("cwd"))
	pol, err := harness.LoadPolicy(harness.PolicySource{Dir: dir, File: c.String("policy"), Allow: ruleFlag(c, "allow"), Deny: ruleFlag(c, "deny"),
		TrustWorkspace: c.Bool("trust-workspace"), Headless: true}, c.App.ErrWriter)
	if err != nil {
		return err
	}
	ch, err := mcpChoiceFromCLI(c)
	if err != nil {
		return err
	}
	notice := noteTo(c.App.ErrWriter, "rubichan: note: ")
	servers, err := harness.MCPServers(ch, lc, dir, c.Bool("trust-workspace"), notice)
	if err != nil {
		return err
	}
	statuses, err := harness.ProbeMCP(c.Context, harness.Settings{Config: lc}, env.Env, servers, dir, notice)
	if err != nil {
		return err
	}
	out := mcpListJSON{Servers: []mcpServerJSON{}, OK: true}
	for _, st := range statuses {
		s := mcpServerJSON{Status: st, Tools: []mcpToolJSON{}}
		for _, ti := range st.Tools {
			r := pol.Decide(policy.Action{Class: policy.ClassMCP, Name: ti.Policy})
			s.Tools = append(s.Tools, mcpToolJSON{ToolInfo: ti, Decision: r.Decision.String(), Rule: r.Rule})
		}
		out.OK = out.OK && (st.State == mcp.StateReady || !st.Required)
		out.Servers = append(out.Servers, s)
	}
	if err := writeMCPList(c.App.Writer, out, c.Bool("json")); err != nil {
		return exit.StdoutError{Err: err}
	}
	if !out.OK {
		fmt.Fprintln(c.App.ErrWriter, "rubichan: mcp list: a required MCP server is not ready")
		return exit.Reported{Err: exit.CodeError{Code: exit.Failure, Err: fmt.Errorf("mcp list: a required MCP server is not ready")}}
	}
	return nil
}

func writeMCPList(w io.Writer, out mcpListJSON, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(sink.NewJSONShown(w))
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	var b strings.Builder
	if len(out.Servers) == 0 {
		b.WriteString("no MCP server is configured\n")
	}
	for _, s := range out.Servers {
		req := ""
		if s.Required {
			req = ", required"
		}
		fmt.Fprintf(&b, "%s: %s (%s%s), %d tools", s.Name, s.State, s.Transport, req, len(s.Tools))
		if s.Reason != "" {
			fmt.Fprintf(&b, ": %s", s.Reason)
		}
		b.WriteByte('\n')
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for _, t := range s.Tools {
			fmt.Fprintf(tw, "  %s\t%s\t%s\trule %s\n", t.Name, t.Policy, t.Decision, t.Rule)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	// Names, reasons and notes come from the servers and the
	// configuration: their control characters are shown.
	_, err := io.WriteString(w, agent.Shown(b.String()))
	return err
}

// noteTo returns a function that writes a note, one line after prefix,
// on w, with its control characters shown ([agent.Shown]): notes name servers,
// files and settings of the configuration, which a checkout may hold.
func noteTo(w io.Writer, prefix string) func(string) {
	return func(s string) { fmt.Fprintf(w, "%s%s\n", prefix, agent.Shown(s)) }
}
