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
// commands that answer them: one line each that works pasted into a
// shell, carrying flags, the deferred run's flags the resumed run needs
// (shell words, quoted already). The calls' ids, tools, facts, rules and
// diffs come from the model, the workspace and the policy file: their
// control characters are shown ([agent.Shown]).
func ReportPending(w io.Writer, pending []session.Pending, path, storeDir string, flags []string) {
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
	cmd := "rubichan exec "
	if len(flags) > 0 {
		cmd += agent.Shown(strings.Join(flags, " ")) + " "
	}
	fmt.Fprintf(w, "approve: %s--resume %s --approve %s   # or --approve all\n", cmd, agent.Shown(ShellWord(ref)), agent.Shown(ShellWord(pending[0].ID)))
	fmt.Fprintf(w, "deny:    %s--resume %s --deny-pending\n", cmd, agent.Shown(ShellWord(ref)))
}

// RedactedPending returns copies of the pending calls with the run's
// secrets redacted from what a person is shown (facts, rules, diffs): a
// model server may echo the key into a call's arguments, and stderr is a
// CI job's log.
func RedactedPending(pending []session.Pending, red *agent.Redactor) []session.Pending {
	out := make([]session.Pending, len(pending))
	for i, p := range pending {
		p.Fact, p.Rule, p.Diff = red.Redact(p.Fact), red.Redact(p.Rule), red.Redact(p.Diff)
		if p.Facts != nil {
			facts := make([]session.PendingFact, len(p.Facts))
			for j, f := range p.Facts {
				facts[j] = session.PendingFact{Fact: red.Redact(f.Fact), Rule: red.Redact(f.Rule)}
			}
			p.Facts = facts
		}
		out[i] = p
	}
	return out
}

// WritePending writes one pending call: its id, tool and fact, or when
// several facts need approval each of them on a line of its own (an
// approval of the call covers all of them), then the diff, if any.
func WritePending(w io.Writer, p session.Pending) {
	if facts := p.Asked(); len(facts) > 1 {
		fmt.Fprintf(w, "  %s  %s  %d facts, approved together:\n", agent.Shown(p.ID), agent.Shown(p.Tool), len(facts))
		for _, f := range facts {
			fmt.Fprintf(w, "    %s  (rule %s)\n", Whole(f.Fact), agent.Shown(f.Rule))
		}
	} else {
		fmt.Fprintf(w, "  %s  %s  %s  (rule %s)\n", agent.Shown(p.ID), agent.Shown(p.Tool), Whole(p.Fact), agent.Shown(p.Rule))
	}
	if p.Diff != "" {
		for _, line := range strings.Split(strings.TrimRight(p.Diff, "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", agent.Shown(line))
		}
	}
}

// ShellWord quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:=@,+%.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
