package sink

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
)

// ReportPending lists the calls a deferred run left on stderr, with the
// commands that answer them. The calls' ids, tools, facts, rules and
// diffs come from the model, the workspace and the policy file: their
// control characters are shown ([agent.Shown]).
func ReportPending(w io.Writer, pending []session.Pending, path, storeDir string) {
	if len(pending) == 0 {
		return
	}
	fmt.Fprintf(w, "rubichan: %d call(s) await approval:\n", len(pending))
	for _, p := range pending {
		WritePending(w, p)
	}
	if path == "" {
		return
	}
	// The id finds the session in the directory this run used; a file
	// elsewhere is named by its path.
	ref := session.IDOf(path)
	if filepath.Dir(path) != storeDir {
		ref = path
	}
	fmt.Fprintf(w, "approve: rubichan exec --resume %s --approve %s   (or --approve all)\n", agent.Shown(ref), agent.Shown(pending[0].ID))
	fmt.Fprintf(w, "deny:    rubichan exec --resume %s --deny-pending\n", agent.Shown(ref))
}

// WritePending writes one pending call: its id, tool and fact, or when
// several facts need approval each of them on a line of its own (an
// approval of the call covers all of them), then the diff, if any.
func WritePending(w io.Writer, p session.Pending) {
	if facts := p.Asked(); len(facts) > 1 {
		fmt.Fprintf(w, "  %s  %s  %d facts, approved together:\n", agent.Shown(p.ID), agent.Shown(p.Tool), len(facts))
		for _, f := range facts {
			fmt.Fprintf(w, "    %s  (rule %s)\n", agent.Clip(f.Fact, 200), agent.Shown(f.Rule))
		}
	} else {
		fmt.Fprintf(w, "  %s  %s  %s  (rule %s)\n", agent.Shown(p.ID), agent.Shown(p.Tool), agent.Clip(p.Fact, 200), agent.Shown(p.Rule))
	}
	if p.Diff != "" {
		for _, line := range strings.Split(strings.TrimRight(p.Diff, "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", agent.Shown(line))
		}
	}
}
