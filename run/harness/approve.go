package harness

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/toolkit"
)

// runnerGrant is the rule name shown for reads the runner itself grants:
// its own spilled stdin file.
const runnerGrant = "runner (spilled stdin)"

// Approver turns a tool call's effects into a policy action and the
// policy's result into an [agent.Verdict]. It also grants reads inside the
// runner's spill directory, which no rule names (policy issue: the runner
// grants its own file, not a rule).
type Approver struct {
	pol       *policy.Policy
	sess      *policy.Session // line mode: the person's answers; nil in a headless run
	ws        *toolkit.Workspace
	spillDirs []string // slash-separated absolute directories; empty without a spill
	// vars are the bash tool's HOME, PWD, TMPDIR and USER
	// ([toolkit.Bash.Vars]), set before the first call is judged; nil
	// without a bash tool (policy check): their expansions are opaque.
	vars map[string]string
}

// NewApprover returns the approver of a run under pol in ws, granting
// reads in spillDir ("" without a spill). In line mode (lineMode) it
// keeps the person's answers in a policy session.
func NewApprover(pol *policy.Policy, ws *toolkit.Workspace, spillDir string, lineMode bool) *Approver {
	a := &Approver{pol: pol, ws: ws}
	if lineMode {
		a.sess = pol.NewSession()
	}
	if spillDir != "" {
		a.spillDirs = append(a.spillDirs, filepath.ToSlash(filepath.Clean(spillDir)))
		if real, err := filepath.EvalSymlinks(spillDir); err == nil {
			a.spillDirs = append(a.spillDirs, filepath.ToSlash(real))
		}
	}
	return a
}

// inSpill reports whether p, as the workspace reports paths, lies in the
// spill directory.
func (a *Approver) inSpill(p string) bool {
	if !path.IsAbs(p) {
		return false
	}
	p = path.Clean(p)
	for _, d := range a.spillDirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// ReadFilter is the grep and glob filter: the files the read rules allow
// (a file whose read is "ask" is left out, as a headless run refuses it),
// plus the spill file.
func (a *Approver) ReadFilter() func(string) bool {
	rules := a.pol.ReadFilter()
	if a.sess != nil {
		rules = a.sess.ReadFilter()
	}
	return func(p string) bool { return a.inSpill(p) || rules(p) }
}

// Judge decides one call; it is the loop's [agent.Options.Judge]. It fails closed: an effect kind it does not know
// is denied.
func (a *Approver) Judge(tool string, eff toolkit.Effects) agent.Verdict {
	act := policy.Action{Command: eff.Command, Dir: eff.Dir, Links: a.links}
	switch eff.Kind {
	case toolkit.EffectRead:
		act.Class = policy.ClassRead
	case toolkit.EffectWrite:
		act.Class = policy.ClassWrite
	case toolkit.EffectExecute:
		act.Class = policy.ClassShell
		act.Resolve = func(p string) (string, error) {
			ref, err := a.ws.Resolve(p)
			return ref.Resolved, err
		}
		act.Files = ListFiles(a.ws.Root(), act.Resolve)
		act.Env = ShellEnv(a.ws.Root(), eff.Dir, a.vars)
	case toolkit.EffectMCP:
		act.Class, act.Name, act.Links = policy.ClassMCP, eff.Tool, nil
	default:
		return agent.Verdict{Kind: agent.VerdictDeny, Rule: policy.RuleGuard, Fact: tool, Reason: "unknown kind of effect",
			Message: "Policy denied this call: the runner cannot tell what it would do. Use another tool."}
	}
	spillOnly := act.Class == policy.ClassRead && len(eff.Paths) > 0
	for _, p := range eff.Paths {
		act.Paths = append(act.Paths, policy.Path{Requested: p.Requested, Resolved: p.Resolved})
		if !a.inSpill(p.Requested) || (p.Resolved != "" && !a.inSpill(p.Resolved)) {
			spillOnly = false
		}
	}
	if spillOnly {
		return agent.Verdict{Kind: agent.VerdictAllow, Rule: runnerGrant, ReadOnly: true}
	}
	r := a.decide(act)
	// The activity line shows a command as itself: "curl x", not "command: curl x".
	v := agent.Verdict{Rule: r.Rule, Fact: strings.TrimPrefix(r.Fact, "command: "), Reason: r.Reason, Message: r.Message(),
		Allow: a.pol.AllowRules(act, r), Remedy: r.Remedy, Detail: r, ReadOnly: r.ReadOnly()}
	if act.Class == policy.ClassMCP {
		// The servers of a run are the ones the user configured, or a
		// trusted workspace's (an untrusted checkout's are never
		// started), so their claim that a tool only reads is taken.
		v.ReadOnly = eff.ReadOnlyHint
	}
	switch r.Decision {
	case policy.Allow:
		v.Kind = agent.VerdictAllow
	case policy.Ask:
		v.Kind = agent.VerdictAsk
	default:
		v.Kind = agent.VerdictDeny
	}
	return v
}

// decide is the policy's decision, with the session's answers in line mode.
func (a *Approver) decide(act policy.Action) policy.Result {
	if a.sess != nil {
		return a.sess.Decide(act)
	}
	return a.pol.Decide(act)
}

// Policy is the run's policy.
func (a *Approver) Policy() *policy.Policy { return a.pol }

// Session is the person's answers in line mode; nil in a headless run.
func (a *Approver) Session() *policy.Session { return a.sess }

// SetVars sets the bash tool's HOME, PWD, TMPDIR and USER
// ([toolkit.Bash.Vars]) the policy judges shell commands with.
func (a *Approver) SetVars(vars map[string]string) { a.vars = vars }

// links returns the number of hard links of the file a path names
// (workspace-relative or absolute, symlinks followed); 0 when it does not
// exist or cannot be told. One stat, since grep and glob ask for every
// file they meet.
func (a *Approver) links(p string) int { return LinksIn(a.ws.Root(), p) }

// LinksIn is [Approver.links] for a workspace rooted at root.
func LinksIn(root, p string) int {
	abs := filepath.FromSlash(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	return LinkCount(abs)
}
