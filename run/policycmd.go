package run

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit"
)

// policyCommand is `rubichan policy`, with its subcommands `check` and
// `learn`.
func policyCommand(env environment) *cli.Command {
	return &cli.Command{
		Name:            "policy",
		Usage:           "work with policy files",
		HideHelpCommand: true,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return exit.UsageError{Err: err}
		},
		Subcommands: []*cli.Command{policyCheckCommand(env), policyLearnCommand(env)},
		Action:      requireSubcommand("policy", "; try: rubichan policy check --tool shell -- 'git status'"),
	}
}

func policyCheckCommand(env environment) *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "show how the policy judges one tool call, without running it",
		UsageText: "rubichan policy check [--policy FILE] [--allow R] [--deny R] [--trust-workspace] [--allow-all] [--json] [-C DIR] --tool shell|read|write|mcp -- ARG\n" +
			"rubichan policy check [--policy FILE] [-C DIR]   (validate the policy and run its self-tests)",
		Description: `Resolves the policy exactly as exec would in the same directory (--policy,
else a trusted .rubichan/policy.toml, else the built-in default, plus --allow
and --deny), then prints the facts of the call, the rule that decided each,
and the decision. With --tool read or write, ARG is a path resolved against
the workspace as the file tools resolve it. With --tool mcp, ARG is an MCP
server's tool as SERVER/TOOL.

Examples:
   rubichan policy check --tool shell -- 'git status && rm -rf /'
   rubichan policy check --policy ci.toml --json --tool shell -- 'go test ./...' | jq -r .decision
   rubichan policy check --allow 'write:src/**' --tool write src/main.go
   rubichan policy check --allow 'mcp:github/get_*' --tool mcp -- github/create_issue

With no call (no --tool, no ARG) it validates the policy instead, as
doctor --offline does: it loads the file and runs its [[test]] self-tests.
The keys of a policy file: docs/policy-file.md.

Exit codes: 0 when it decided (whatever the decision), or when the policy is
valid and its self-tests pass; 1 when a self-test fails (named); 2 when the
policy or the arguments are invalid.`,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return exit.UsageError{Err: err}
		},
		Flags: append(append(policyFlags(""), skillFlags("")...),
			&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
			&cli.StringFlag{Name: "tool", Usage: "`CLASS` of the call: shell, read, write or mcp (required)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
			&cli.BoolFlag{Name: "allow-all", Usage: "judge as a run with --allow-all does (inside the OS sandbox)"},
		),
		Action: func(c *cli.Context) error { return runPolicyCheck(c, env) },
	}
}

func runPolicyCheck(c *cli.Context, env environment) error {
	if !c.IsSet("tool") && c.NArg() == 0 {
		return validatePolicy(c)
	}
	if !c.IsSet("tool") {
		return exit.Usagef("policy check: --tool shell|read|write|mcp is required")
	}
	class, err := policy.ParseClass(c.String("tool"))
	if err != nil {
		return exit.Usagef("policy check: --tool: %v", err)
	}
	if c.NArg() != 1 {
		what := "the command, quoted as one argument"
		if class == policy.ClassMCP {
			what = "one SERVER/TOOL name"
		} else if class != policy.ClassShell {
			what = "one path"
		}
		return exit.Usagef("policy check: want %s after --, got %d arguments", what, c.NArg())
	}
	arg := c.Args().First()
	stderr := c.App.ErrWriter
	// The skills' read rules, as a run in the same directory layers them in.
	set, root, err := discoverSkillsCLI(c, env, c.String("cwd"))
	if err != nil {
		return err
	}
	pol, err := harness.LoadPolicy(harness.PolicySource{
		Dir:            c.String("cwd"),
		File:           c.String("policy"),
		Allow:          ruleFlag(c, "allow"),
		Deny:           ruleFlag(c, "deny"),
		TrustWorkspace: c.Bool("trust-workspace"),
		Headless:       true,
		Reads:          harness.SkillGrants(set, root),
	}, stderr)
	if err != nil {
		return err
	}
	if c.Bool("allow-all") {
		pol = pol.WithAllowAll()
	}
	dir := c.String("cwd")
	if dir == "" {
		dir = "."
	}
	ws, err := toolkit.OpenWorkspace(dir)
	if err != nil {
		return exit.Usagef("policy check: %v", err)
	}
	defer ws.Close()
	for _, r := range pol.ExtraRoots() {
		if err := ws.AddRoot(r.Dir, r.Write); err != nil {
			noteTo(stderr, "rubichan: note: ")(fmt.Sprintf("the policy names %s, which cannot be opened: %v", r.Dir, err))
		}
	}
	r := checkAction(pol, ws, class, arg)
	var allow []string
	if r.Rule != policy.RuleGuard {
		// The rules that would let it through, judged on the same paths.
		a := policy.Action{Class: class, Command: arg}
		if class == policy.ClassMCP {
			a = policy.Action{Class: class, Name: arg}
		} else if class != policy.ClassShell {
			a.Command = ""
			for _, f := range r.Facts {
				a.Paths = append(a.Paths, policy.Path{Requested: f.Value})
			}
		}
		allow = pol.AllowRules(a, r)
	}
	if c.Bool("json") {
		return writeCheckJSON(c.App.Writer, r, allow)
	}
	return writeCheckText(c.App.Writer, pol, class, arg, r, allow)
}

// resolver is the part of the workspace `policy check` needs: resolving a
// path exactly as the file tools do.
type resolver interface {
	Resolve(path string) (toolkit.PathRef, error)
}

// checkAction judges one call as the runner would: a path is resolved by
// the workspace first, and a path the file tools refuse is a denial.
func checkAction(pol *policy.Policy, ws resolver, class policy.Class, arg string) policy.Result {
	a := policy.Action{Class: class}
	if r, ok := ws.(interface{ Root() string }); ok {
		a.Links = func(p string) int { return harness.LinksIn(r.Root(), p) }
	}
	if class == policy.ClassMCP {
		a.Name = arg
		return pol.Decide(a)
	}
	if class == policy.ClassShell {
		a.Command = arg
		a.Resolve = func(p string) (string, error) {
			ref, err := ws.Resolve(p)
			return ref.Resolved, err
		}
		if r, ok := ws.(interface{ Root() string }); ok {
			a.Files = harness.ListFiles(r.Root(), a.Resolve)
			a.Env = harness.ShellEnv(r.Root(), "", nil) // no bash tool: $HOME and the like stay opaque
		}
		return pol.Decide(a)
	}
	ref, err := ws.Resolve(arg)
	if err != nil {
		kind := policy.FactRead
		if class == policy.ClassWrite {
			kind = policy.FactWrite
		}
		f := policy.Fact{Kind: kind, Value: arg, Decision: policy.Deny, Rule: policy.RuleGuard,
			Reason: "the file tools refuse it: " + err.Error()}
		return policy.Result{Decision: policy.Deny, Rule: f.Rule, Fact: f.String(), Reason: f.Reason, Facts: []policy.Fact{f}}
	}
	a.Paths = []policy.Path{{Requested: ref.Requested, Resolved: ref.Resolved}}
	return pol.Decide(a)
}

// checkJSON is the --json output.
type checkJSON struct {
	Decision string          `json:"decision"`
	Rule     string          `json:"rule"`
	Fact     string          `json:"fact"`
	Reason   string          `json:"reason"`
	Facts    []checkFactJSON `json:"facts"`
	// AllowWith are the narrowest --allow rules that would allow the call.
	AllowWith []string `json:"allow_with,omitempty"`
	// Remedy says why no --allow rule lifts a refusal, and the
	// alternatives ("no rule can allow this: …").
	Remedy string `json:"remedy,omitempty"`
}

type checkFactJSON struct {
	Kind     string `json:"kind"`
	Value    string `json:"value"`
	Decision string `json:"decision"`
	Rule     string `json:"rule"`
	Reason   string `json:"reason"`
}

func writeCheckJSON(w io.Writer, r policy.Result, allow []string) error {
	out := checkJSON{Decision: r.Decision.String(), Rule: r.Rule, Fact: r.Fact, Reason: r.Reason, Facts: []checkFactJSON{}, AllowWith: allow,
		Remedy: r.Remedy}
	for _, f := range r.Facts {
		out.Facts = append(out.Facts, checkFactJSON{Kind: f.Kind.String(), Value: f.Value,
			Decision: f.Decision.String(), Rule: f.Rule, Reason: f.Reason})
	}
	enc := json.NewEncoder(sink.NewJSONShown(w))
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func writeCheckText(w io.Writer, pol *policy.Policy, class policy.Class, arg string, r policy.Result, allow []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "policy:   %s\n", pol.Name())
	what := "path"
	switch class {
	case policy.ClassShell:
		what = "command"
	case policy.ClassMCP:
		what = "tool"
	}
	fmt.Fprintf(&b, "call:     %s %s %s\n", class, what, quoteIfNeeded(arg))
	b.WriteString("facts:\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, f := range r.Facts {
		fmt.Fprintf(tw, "  %s\t%s\t%s\trule %s: %s\n", f.Decision, f.Kind, oneLine(f.Value), f.Rule, f.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "decision: %s\n", r.Decision)
	fmt.Fprintf(&b, "rule:     %s\n", r.Rule)
	fmt.Fprintf(&b, "fact:     %s\n", oneLine(r.Fact))
	fmt.Fprintf(&b, "reason:   %s\n", r.Reason)
	if len(allow) > 0 {
		fmt.Fprintf(&b, "allow with: %s\n", sink.AllowFlags(allow))
	} else if r.Remedy != "" {
		fmt.Fprintf(&b, "remedy:   %s\n", oneLine(r.Remedy))
	}
	// The call and the rules (a policy file's) may hold control
	// characters: they are shown.
	_, err := io.WriteString(w, agent.Shown(b.String()))
	return err
}

// oneLine keeps a multi-line value on one line of the report.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}

func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\r'\"\\") {
		return fmt.Sprintf("%q", s)
	}
	return s
}
