package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/harness"
)

// checkSkills finds the skills as a headless run would and reports how
// many it offers, the workspace's ignored without --trust-workspace, and
// every invalid skill by its folder, with its problems: a run skips it.
// Without any skill found the step does not apply.
func checkSkills(_ context.Context, st *state) []Check {
	dir, err := filepath.Abs(st.opts.Dir)
	if err != nil {
		return []Check{{Status: StatusSkipped, Detail: err.Error()}}
	}
	set, err := harness.DiscoverSkills(harness.Settings{
		Dir: dir, Policy: harness.PolicySettings{TrustWorkspace: st.opts.TrustWorkspace}, Skills: st.opts.Skills,
	}, st.opts.Env)
	if err != nil {
		return []Check{{Status: StatusProblem, Detail: err.Error(), Fix: "name an existing folder with --skills"}}
	}
	if len(set.All) == 0 {
		return nil
	}
	var names []string
	for _, s := range set.Offered {
		names = append(names, s.Name)
	}
	out := []Check{{Status: StatusOK, Detail: "no skill offered"}}
	switch len(names) {
	case 0:
	case 1:
		out[0].Detail = "1 skill offered: " + names[0]
	default:
		out[0].Detail = fmt.Sprintf("%d skills offered: %s", len(names), strings.Join(names, ", "))
	}
	for _, n := range set.Notes {
		if strings.HasPrefix(n, "ignoring ") {
			out = append(out, Check{Status: StatusWarning, Detail: n, Fix: "pass --trust-workspace if the checkout is trusted"})
		}
	}
	for _, s := range set.All {
		if !s.Valid() {
			out = append(out, Check{Status: StatusWarning,
				Detail: fmt.Sprintf("skill %s is invalid, a run skips it: %s", s.Dir, strings.Join(s.ProblemTexts(), "; ")),
				Fix:    "correct its SKILL.md frontmatter (the agentskills.io specification); `rubichan skills list` lists every problem"})
		}
	}
	return out
}
