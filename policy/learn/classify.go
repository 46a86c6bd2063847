package learn

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/policy"
)

// learner holds what the calls need, by rule, and what was left out.
type learner struct {
	ref     *policy.Policy // the header or the base: what is allowed already
	guarded []string
	needs   []*need
	left    []Left
	learned []Call // calls whose needs are planned, in canonical order
}

// need is one thing a call needs allowed: a command, a path, an mcp name.
type need struct {
	class policy.Class
	value string // the simple command, the path, the SERVER/TOOL
	group string // commands: the words a final `*` may follow; "" when it may not
	note  string // why it stays literal, for its comment
	calls []Call
}

// classify finds what c needs allowed that the reference policy does not
// allow, or why it is left out.
func (l *learner) classify(c Call) {
	r := l.ref.Decide(c.Action())
	if r.Decision == policy.Allow {
		return // allowed already: reads, plain programs, the base's rules
	}
	var found []need
	for _, f := range r.Facts {
		if f.Decision == policy.Allow {
			continue
		}
		n, why := l.factNeed(c, f)
		if why != "" {
			l.leave(c, why)
			return
		}
		found = append(found, n)
	}
	for _, n := range found {
		l.add(n, c)
	}
	l.learned = append(l.learned, c)
}

// factNeed is what one refused fact needs, or why it cannot be learned.
func (l *learner) factNeed(c Call, f policy.Fact) (need, string) {
	switch {
	case f.Kind == policy.FactOpaque || f.Kind == policy.FactBackground:
		return need{}, "the analysis cannot read it, so no rule can allow it (" + f.Reason + ")"
	case f.Rule == policy.RuleSecrets:
		return need{}, "reads a secret file (rule " + policy.RuleSecrets + "): never learned"
	case f.Kind == policy.FactWrite && l.guardedPath(f.Value):
		return need{}, "writes a guarded path (.git, the policy file or the session log): never learned"
	case f.Rule == policy.RuleGuard:
		return need{}, "guarded: " + f.Reason
	case f.Decision == policy.Deny && !fallback(f.Rule):
		return need{}, "denied by rule " + f.Rule + ": " + f.Reason
	}
	if (f.Kind == policy.FactRead || f.Kind == policy.FactWrite) && strings.ContainsAny(f.Value, "*?[]{}") {
		return need{}, "it " + f.Kind.String() + "s beneath " + f.Value + ", names the analysis cannot know: a rule would have to allow them all"
	}
	switch f.Kind {
	case policy.FactRead:
		return need{class: policy.ClassRead, value: f.Value}, ""
	case policy.FactWrite:
		return need{class: policy.ClassWrite, value: f.Value}, ""
	case policy.FactMCP:
		return need{class: policy.ClassMCP, value: f.Value}, ""
	case policy.FactCommand:
		return l.commandNeed(c, f.Value)
	}
	return need{}, "the policy cannot say what it does (" + f.Kind.String() + ")"
}

// commandNeed classifies one simple command a call needs: generalisable
// (its program's options are modelled and a final `*` draws no warning),
// literal (network access, or a program that runs other programs, when
// the call ran), or left out (the same, when the run only tried it).
func (l *learner) commandNeed(c Call, v string) (need, string) {
	argv := strings.Fields(v)
	if len(argv) == 0 {
		return need{}, "an empty command"
	}
	if d, reason := commandDecision(l.ref, []string{v}, v); d != policy.Allow {
		return need{}, "no rule can name it exactly (" + reason + ")"
	}
	n := need{class: policy.ClassShell, value: v}
	note := network(argv)
	group := groupKey(argv)
	switch {
	case note != "":
	case len(argv) > 1 && path.Base(argv[0]) == "git" && slices.Contains(gitRewrites, argv[1]):
		note = "git " + argv[1] + " rewrites working-tree files without a write fact the policy can judge (the policy file among them)"
	case !policy.Modelled(path.Base(argv[0])):
		note = argv[0] + " runs other programs: its options are not modelled"
	case group == "":
		note = "its words cannot be generalised"
	default:
		probe, err := l.ref.WithRules([]string{"shell:" + group + " *"}, nil)
		if err != nil || len(probe.Warnings()) > len(l.ref.Warnings()) {
			note = group + " * would hand over every program it can run"
		} else if d, reason := commandDecision(l.ref, []string{group + " *"}, v); d != policy.Allow {
			note = "it runs another program through an option (" + reason + ")"
		}
	}
	if note == "" {
		n.group = group
		return n, ""
	}
	if c.Outcome != Ran {
		return need{}, note + "; the run only tried it, so a person decides it"
	}
	n.note = note + ", so the rule names the command exactly"
	return n, ""
}

// commandDecision is the decision for the command fact v of the command v
// under ref with allow rules for patterns added.
func commandDecision(ref *policy.Policy, patterns []string, v string) (policy.Decision, string) {
	specs := make([]string, len(patterns))
	for i, p := range patterns {
		specs[i] = "shell:" + p
	}
	p, err := ref.WithRules(specs, nil)
	if err != nil {
		return policy.Deny, err.Error()
	}
	r := p.Decide(policy.Action{Class: policy.ClassShell, Command: v})
	for _, f := range r.Facts {
		if f.Kind == policy.FactCommand && f.Value == v {
			return f.Decision, f.Reason
		}
	}
	return r.Decision, r.Reason
}

// plainWord is a word a pattern names as itself.
var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+/-]*$`) })

// groupKey is the words of argv a final `*` may follow: the program and,
// for a program with subcommands, the subcommand; "" when they are not
// plain words.
func groupKey(argv []string) string {
	if !plainWord().MatchString(argv[0]) {
		return ""
	}
	switch path.Base(argv[0]) {
	case "git", "go":
		if len(argv) < 2 || !plainWord().MatchString(argv[1]) {
			return ""
		}
		return argv[0] + " " + argv[1]
	}
	return argv[0]
}

// gitRewrites are git subcommands that write working-tree files the
// analysis does not turn into write facts (see the package documentation
// of policy): never generalised.
var gitRewrites = []string{"am", "apply", "checkout", "cherry-pick", "clean", "merge", "mv", "rebase", "reset",
	"restore", "revert", "rm", "stash", "switch", "worktree"}

// networkPrograms reach the network whatever their options.
var networkPrograms = []string{"curl", "ftp", "nc", "ncat", "netcat", "scp", "sftp", "ssh", "telnet", "wget"}

// networkSubs are subcommands that reach the network, by program.
var networkSubs = map[string][]string{
	"git":   {"clone", "fetch", "ls-remote", "pull", "push", "submodule"},
	"go":    {"get", "install", "mod"},
	"npm":   {"ci", "install", "publish"},
	"pip":   {"download", "install"},
	"pip3":  {"download", "install"},
	"cargo": {"install", "publish"},
}

// network says why argv reaches the network, or "".
func network(argv []string) string {
	name := path.Base(argv[0])
	if slices.Contains(networkPrograms, name) {
		return "network access (" + name + ") is never generalised"
	}
	if name == "rsync" && slices.ContainsFunc(argv[1:], func(a string) bool { return strings.Contains(a, ":") }) {
		return "network access (rsync to a remote) is never generalised"
	}
	if len(argv) > 1 && slices.Contains(networkSubs[name], argv[1]) {
		return "network access (" + name + " " + argv[1] + ") is never generalised"
	}
	return ""
}

// guardedPath reports whether a write to p may never be learned: .git,
// the policy file, and the paths the options name.
func (l *learner) guardedPath(p string) bool {
	p = path.Clean(p)
	if p == ".git" || strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || strings.HasSuffix(p, "/.git") {
		return true
	}
	return p == ".rubichan/policy.toml" || slices.Contains(l.guarded, p)
}

// fallback reports whether a fact was decided by no rule.
func fallback(rule string) bool {
	return rule == policy.RuleDefault || strings.HasPrefix(rule, "tools.")
}

// leave records c as left out.
func (l *learner) leave(c Call, why string) {
	l.left = append(l.left, Left{Call: c, Why: why})
}

// add records that c needs n.
func (l *learner) add(n need, c Call) {
	for _, have := range l.needs {
		if have.class == n.class && have.value == n.value {
			if !slices.ContainsFunc(have.calls, func(o Call) bool { return o.Session == c.Session && o.ID == c.ID }) {
				have.calls = append(have.calls, c)
			}
			return
		}
	}
	n.calls = []Call{c}
	l.needs = append(l.needs, &n)
}

// dropRefused leaves out every learned call p does not allow, and
// reports whether there was one.
func (l *learner) dropRefused(p *policy.Policy) bool {
	var keep []Call
	dropped := false
	for _, c := range l.learned {
		if r := p.Decide(c.Action()); r.Decision != policy.Allow {
			l.leave(c, "the learned rules do not allow it ("+r.Reason+")")
			dropped = true
			continue
		}
		keep = append(keep, c)
	}
	l.learned = keep
	for _, n := range l.needs {
		n.calls = slices.DeleteFunc(n.calls, func(c Call) bool {
			return !slices.ContainsFunc(keep, func(k Call) bool { return k.Session == c.Session && k.ID == c.ID })
		})
	}
	return dropped
}
