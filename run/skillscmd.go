package run

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/skills"
)

// skillsCommand is `rubichan skills`: list and show the skills a run in
// the same directory would find.
func skillsCommand(env environment) *cli.Command {
	flags := append([]cli.Flag{
		&cli.StringFlag{Name: "cwd", Aliases: []string{"C"}, Usage: "workspace root `DIR` (default: the current directory)", EnvVars: envs("cwd"), TakesFile: true},
		&cli.BoolFlag{Name: "trust-workspace", Usage: "list the workspace's skills as trusted, as a run with --trust-workspace offers them", EnvVars: envs("trust-workspace")},
	}, skillFlags("")...)
	usageErr := func(_ *cli.Context, err error, _ bool) error { return exit.UsageError{Err: err} }
	return &cli.Command{
		Name:            "skills",
		Usage:           "list and show the Agent Skills a run would offer",
		HideHelpCommand: true,
		OnUsageError:    usageErr,
		Subcommands: []*cli.Command{{
			Name:      "list",
			Usage:     "list every skill found: name, description, source, trusted or not, problems",
			UsageText: "rubichan skills list [--json] [--skills DIR]... [--trust-workspace] [-C DIR]",
			Description: `Finds skills as exec does (~/.agents/skills, $XDG_CONFIG_HOME/rubichan/skills,
the workspace's .agents/skills and .claude/skills, then each --skills DIR)
and lists all of them, invalid and untrusted ones too. --json prints an
array of {name, description, path, source, trusted, problems}.`,
			OnUsageError: usageErr,
			Flags:        append(flags, &cli.BoolFlag{Name: "json", Usage: "print a JSON array"}),
			Action:       func(c *cli.Context) error { return runSkillsList(c, env) },
		}, {
			Name:         "show",
			Usage:        "show one skill: its fields, problems and SKILL.md",
			UsageText:    "rubichan skills show [--skills DIR]... [--trust-workspace] [-C DIR] NAME",
			OnUsageError: usageErr,
			Flags:        flags,
			Action:       func(c *cli.Context) error { return runSkillsShow(c, env) },
		}},
		Action: requireSubcommand("skills", "; try: rubichan skills list"),
	}
}

// discoverSkillsCLI finds the skills of the workspace dir ("" for the
// current directory) under the command's --skills, --no-skills and
// --trust-workspace, as a headless run would; it also returns the
// workspace root, absolute.
func discoverSkillsCLI(c *cli.Context, env environment, dir string) (skills.Set, string, error) {
	if dir == "" {
		dir = "."
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return skills.Set{}, "", exit.Usagef("workspace %s: %v", dir, err)
	}
	set, err := harness.DiscoverSkills(harness.Settings{
		Dir: root, Policy: harness.PolicySettings{TrustWorkspace: c.Bool("trust-workspace")}, Skills: skillSettings(c),
	}, env.Env)
	return set, root, err
}

// skillJSON is one skill as `skills list --json` prints it.
type skillJSON struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Path        string   `json:"path"`
	Source      string   `json:"source"`
	Trusted     bool     `json:"trusted"`
	Problems    []string `json:"problems"`
}

// skillName is a skill's name, or its folder's when the frontmatter gives
// none.
func skillName(s skills.Skill) string {
	if s.Name != "" {
		return s.Name
	}
	return filepath.Base(s.Dir)
}

func runSkillsList(c *cli.Context, env environment) error {
	if c.NArg() != 0 {
		return exit.Usagef("skills list: takes no arguments, got %d", c.NArg())
	}
	set, _, err := discoverSkillsCLI(c, env, c.String("cwd"))
	if err != nil {
		return err
	}
	if c.Bool("json") {
		out := []skillJSON{}
		for _, s := range set.All {
			out = append(out, skillJSON{Name: skillName(s), Description: s.Description, Path: s.File,
				Source: string(s.Source), Trusted: s.Trusted, Problems: s.ProblemTexts()})
		}
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return writeSkillsText(c.App.Writer, set)
}

// writeSkillsText prints the skills as a table, then each skill's
// problems and, for the loser of a name collision, the skill a run offers
// instead; the files' text escaped.
func writeSkillsText(w io.Writer, set skills.Set) error {
	all := set.All
	if len(all) == 0 {
		_, err := fmt.Fprintln(w, "no skills found")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tTRUSTED\tSTATUS\tDESCRIPTION")
	for _, s := range all {
		status := "ok"
		if !s.Valid() {
			status = "invalid"
		}
		desc := strings.Join(strings.Fields(s.Description), " ")
		if len(desc) > 70 {
			desc = desc[:67] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", agent.Shown(skillName(s)), s.Source, yesNo(s.Trusted), status, agent.Shown(desc))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range all {
		for _, p := range s.ProblemTexts() {
			fmt.Fprintf(w, "%s: %s\n", agent.Shown(skillName(s)), agent.Shown(p))
		}
		for _, won := range set.Offered {
			if s.Valid() && s.Trusted && won.Name == s.Name && won.File != s.File {
				fmt.Fprintf(w, "%s: overridden by %s, which a run offers\n", agent.Shown(skillName(s)), agent.Shown(won.File))
			}
		}
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func runSkillsShow(c *cli.Context, env environment) error {
	if c.NArg() != 1 {
		return exit.Usagef("skills show: want one skill NAME, got %d arguments", c.NArg())
	}
	set, _, err := discoverSkillsCLI(c, env, c.String("cwd"))
	if err != nil {
		return err
	}
	name := c.Args().First()
	s, ok := findSkill(set, name)
	if !ok {
		return exit.Usagef("skills show: no skill %q found; rubichan skills list shows them", name)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "name: %s\ndescription: %s\npath: %s\nsource: %s\ntrusted: %s\n", agent.Shown(skillName(s)), agent.Shown(s.Description), agent.Shown(s.File), s.Source, yesNo(s.Trusted))
	for _, kv := range [][2]string{{"license", s.License}, {"compatibility", s.Compatibility}} {
		if kv[1] != "" {
			fmt.Fprintf(w, "%s: %s\n", kv[0], agent.Shown(kv[1]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Metadata)) {
		fmt.Fprintf(w, "metadata.%s: %s\n", agent.Shown(k), agent.Shown(s.Metadata[k]))
	}
	if len(s.AllowedTools) > 0 {
		fmt.Fprintf(w, "allowed-tools: %s (recorded only: the policy decides every call)\n", agent.Shown(strings.Join(s.AllowedTools, " ")))
	}
	if s.SHA256 != "" {
		fmt.Fprintf(w, "sha256: %s\n", s.SHA256)
	}
	for _, p := range s.ProblemTexts() {
		fmt.Fprintf(w, "problem: %s\n", agent.Shown(p))
	}
	data, err := skills.ReadFile(s.File)
	if err != nil {
		return nil // the problem says why
	}
	_, err = fmt.Fprintf(w, "\n%s", agent.Shown(string(data)))
	return err
}

// findSkill is the skill named name: the offered one, else the last found
// under that name (or folder name).
func findSkill(set skills.Set, name string) (skills.Skill, bool) {
	for _, s := range set.Offered {
		if s.Name == name {
			return s, true
		}
	}
	for i := len(set.All) - 1; i >= 0; i-- {
		if skillName(set.All[i]) == name {
			return set.All[i], true
		}
	}
	return skills.Skill{}, false
}
