package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Decision is the answer for one fact or one call. The zero value is not a
// valid decision and is treated as [Deny] wherever it could reach a caller.
type Decision uint8

// Decisions, ordered from the most permissive to the strictest.
const (
	Allow Decision = iota + 1
	Ask
	Deny
)

// String returns "allow", "ask" or "deny" (and "deny" for the zero value,
// which the package treats as a denial).
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	}
	return "deny"
}

// ParseDecision parses "allow", "ask" or "deny".
func ParseDecision(s string) (Decision, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("unknown decision %q (want allow, ask or deny)", s)
}

// Class is the kind of tool a rule or an action is about.
type Class uint8

// Tool classes: read (read, grep, glob, ls), write (write, edit), shell
// (bash) and mcp (the tools of MCP servers, named "SERVER/TOOL").
const (
	ClassRead Class = iota + 1
	ClassWrite
	ClassShell
	ClassMCP
)

// String returns "read", "write" or "shell".
func (c Class) String() string {
	switch c {
	case ClassRead:
		return "read"
	case ClassWrite:
		return "write"
	case ClassShell:
		return "shell"
	case ClassMCP:
		return "mcp"
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// ParseClass parses "read", "write" or "shell", or the name of a tool,
// which stands for its class: "grep", "glob" and "ls" for read, "edit" for
// write, "bash" for shell.
func ParseClass(s string) (Class, error) {
	switch s {
	case "read", "grep", "glob", "ls":
		return ClassRead, nil
	case "write", "edit":
		return ClassWrite, nil
	case "shell", "bash":
		return ClassShell, nil
	case "mcp":
		return ClassMCP, nil
	}
	return 0, fmt.Errorf("unknown tool class %q (want read, write, shell or mcp; a tool name stands for its class: read, grep, glob, ls → read; write, edit → write; bash → shell)", s)
}

// HeadlessAsk is what "ask" means when nobody is there to answer.
type HeadlessAsk uint8

// What a headless run does with a call whose decision is [Ask].
const (
	// AskDeny refuses the call, tells the model, and goes on.
	AskDeny HeadlessAsk = iota
	// AskAbort stops the run (exit code 3).
	AskAbort
	// AskDefer stops the run (exit code 3) with the call pending, for a
	// person to approve or deny in a later run that resumes the session.
	AskDefer
)

// String returns "deny", "abort" or "defer".
func (h HeadlessAsk) String() string {
	switch h {
	case AskAbort:
		return "abort"
	case AskDefer:
		return "defer"
	}
	return "deny"
}

// RedirectMode says how shell redirects to files are judged.
type RedirectMode uint8

// Redirect modes of the [shell] table.
const (
	// RedirectCheck judges `> f` and `>> f` targets by the write rules and
	// `< f` by the read rules.
	RedirectCheck RedirectMode = iota
	// RedirectDeny denies every redirect to or from a file.
	RedirectDeny
)

// String returns "check" or "deny".
func (m RedirectMode) String() string {
	if m == RedirectDeny {
		return "deny"
	}
	return "check"
}

// ShellOptions are the settings of the [shell] table.
type ShellOptions struct {
	// Redirects says how redirect targets are judged.
	Redirects RedirectMode
	// Background is the decision for a job started with `&`.
	Background Decision
	// PlainPrograms (plain_programs, on unless a file turns it off) lets
	// a plain program run without a shell rule of its own: one whose
	// every effect the analysis models (the readers such as cat, grep and
	// head; echo, printf, true, false, test, pwd, which; mkdir, touch,
	// rm, cp and mv) is judged by those effects alone, its reads by the
	// read rules and its writes by the write rules. A shell rule that
	// matches the command still decides it.
	PlainPrograms bool
}

// Root is a directory outside the workspace that an absolute allow rule
// names, so the runner may open it for the file tools. The policy still
// judges every path under it.
type Root struct {
	// Dir is the absolute, cleaned, slash-separated directory.
	Dir string
	// Read and Write say which classes of allow rule name it.
	Read, Write bool
}

// Policy is a loaded, validated policy. It is immutable and safe for
// concurrent use.
type Policy struct {
	name       string   // where the policy came from, for messages
	file       string   // absolute path of the policy file; "" when none
	roots      []string // the workspace root's absolute slash names: [0] as given, then with links evaluated; empty when unknown
	defaults   Decision
	headless   HeadlessAsk
	maxDenials int
	tools      [ClassMCP + 1]Decision // fallback per class; 0 = unset
	shell      ShellOptions
	rules      []*rule
	tests      []selfTest
	warnings   []string
	secretsOff bool          // [defaults] secret_denials = false
	guarded    []guardedFile // files no write may reach besides the policy file (see [Policy.WithGuarded])
	allowAll   bool          // --allow-all: see [Policy.WithAllowAll]
}

// Name names where the policy came from: a file path, or "built-in default
// policy".
func (p *Policy) Name() string { return p.name }

// File returns the absolute path of the policy file, or "" when the policy
// did not come from a file.
func (p *Policy) File() string { return p.file }

// SelfTests returns how many [[test]] entries the policy has. [Parse]
// runs a file's; [Default] does not run its own at every start (its
// package test does): [Policy.SelfTest] runs them.
func (p *Policy) SelfTests() int { return len(p.tests) }

// SelfTest runs the policy's [[test]] entries and returns the first that
// fails, as a [*LoadError].
func (p *Policy) SelfTest() error { return p.selfTest() }

// HasRule reports whether the policy has a rule whose id is id.
func (p *Policy) HasRule(id string) bool {
	for _, r := range p.rules {
		if r.id == id {
			return true
		}
	}
	return false
}

// HeadlessAsk returns what a headless run does with an "ask".
func (p *Policy) HeadlessAsk() HeadlessAsk { return p.headless }

// MaxDenials returns how many refusals a run tolerates before it aborts
// with exit code 3; 0 means no limit.
func (p *Policy) MaxDenials() int { return p.maxDenials }

// Shell returns the [shell] options.
func (p *Policy) Shell() ShellOptions { return p.shell }

// Warnings returns the load-time warnings, such as an allow rule that a deny
// rule fully covers and so can never take effect. The runner prints them on
// stderr. A policy that turns the built-in secret-file denials off always
// warns about it.
func (p *Policy) Warnings() []string {
	w := slices.Clone(p.warnings)
	if p.secretsOff {
		w = append(w, secretsOffWarning)
	}
	return w
}

// Fallback returns the decision for a fact of class c that no rule matches:
// the [tools] entry for the class, else the default.
func (p *Policy) Fallback(c Class) Decision {
	if c >= ClassRead && c <= ClassMCP && p.tools[c] != 0 {
		return p.tools[c]
	}
	return p.defaults
}

// InWorkspace returns a copy of the policy bound to the workspace root dir
// (made absolute). A bound policy turns absolute paths inside the workspace
// into workspace-relative ones before matching, resolves relative paths
// that leave the workspace against absolute rules, and guards the policy
// file itself when it lies in the workspace.
//
// The root is known by its name as given and by its name with symlinks
// evaluated (the form the file tools report). Binding again to another
// name of the same directory adds that name rather than replacing the
// first, so the loader and the runner may each bind the form they hold.
func (p *Policy) InWorkspace(dir string) *Policy {
	q := *p
	names := rootNames(dir)
	if len(names) == 0 {
		return &q
	}
	if len(p.roots) > 0 && p.roots[len(p.roots)-1] == names[len(names)-1] {
		names = append(slices.Clone(p.roots), names...)
	}
	q.roots = nil
	for _, n := range names {
		if !slices.Contains(q.roots, n) {
			q.roots = append(q.roots, n)
		}
	}
	return &q
}

// within returns the workspace-relative form of a path inside the bound
// workspace, for the shell analysis's cd.
func (p *Policy) within(name string) (string, bool) {
	if checkText(name) != nil {
		return "", false
	}
	clean, outside := p.normalize(name)
	return clean, !outside
}

// rootNames returns dir absolute, then with links evaluated when that
// differs; the last name is always the evaluated one when it can be had.
func rootNames(dir string) []string {
	if dir == "" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	names := []string{path.Clean(filepath.ToSlash(abs))}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		if r := path.Clean(filepath.ToSlash(real)); r != names[0] {
			names = append(names, r)
		}
	}
	return names
}

// ExtraRoots returns the directories outside the workspace that absolute
// allow rules name, sorted, each once: for a pattern, the longest leading
// part without glob characters (for a plain file, its directory).
func (p *Policy) ExtraRoots() []Root {
	byDir := map[string]*Root{}
	for _, r := range p.rules {
		if r.decision != Allow || r.class == ClassShell {
			continue
		}
		for _, pat := range r.paths {
			if !strings.HasPrefix(pat, "/") {
				continue
			}
			dir := staticDir(pat)
			rt := byDir[dir]
			if rt == nil {
				rt = &Root{Dir: dir}
				byDir[dir] = rt
			}
			if r.class == ClassRead {
				rt.Read = true
			} else {
				rt.Write = true
			}
		}
	}
	roots := make([]Root, 0, len(byDir))
	for _, rt := range byDir {
		roots = append(roots, *rt)
	}
	slices.SortFunc(roots, func(a, b Root) int { return strings.Compare(a.Dir, b.Dir) })
	return roots
}

// staticDir returns the directory part of an absolute pattern that holds no
// glob characters.
func staticDir(pat string) string {
	segs := strings.Split(pat, "/")
	i := 0
	for i < len(segs) && !strings.ContainsAny(segs[i], "*?[{\\") {
		i++
	}
	if i == len(segs) { // a plain file: its directory
		return path.Dir(pat)
	}
	dir := strings.Join(segs[:i], "/")
	if dir == "" {
		return "/"
	}
	return dir
}

// ReadFilter returns a function that reports whether a path found by grep
// or glob under an approved search root may reach the model: only when the
// read rules allow it. A file whose read is "ask" is left out as surely as
// a denied one: with nobody to answer, "ask" is a refusal, and a filter
// cannot put a question to a person for every file it meets, so it must
// not let through what a direct read of the same file would not get. A
// line-mode runner uses [Session.ReadFilter], which also lets through the
// files a person approved reading in the session.
//
// The path is workspace-relative in slash form, or absolute outside the
// workspace; the runner calls it for both the requested and the resolved
// path of each file.
func (p *Policy) ReadFilter() func(path string) bool {
	return func(name string) bool {
		return p.pathFact(ClassRead, FactRead, name).Decision == Allow
	}
}
