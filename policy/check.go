package policy

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// ErrSelfTest is wrapped by the [*LoadError] of a policy file that loads
// but whose [[test]] entry does not get the decision it expects.
var ErrSelfTest = errors.New("self-test failed")

// selfTest is one [[test]] entry: an action and the decision the policy
// must give it.
type selfTest struct {
	key    string // "test[N]", for errors
	line   int
	action Action
	expect Decision
}

func (b *builder) test(i int, td testDoc) (selfTest, error) {
	key := fmt.Sprintf("test[%d]", i)
	t := selfTest{key: key, line: b.lines.Dotted(key)}
	class, err := ParseClass(td.Tool)
	if err != nil {
		return t, b.errf(key+".tool", "%v", err)
	}
	if t.expect, err = ParseDecision(td.Expect); err != nil {
		return t, b.errf(key+".expect", "%v", err)
	}
	t.action.Class = class
	switch {
	case class == ClassMCP && td.Name != nil && td.Path == nil && td.Command == nil:
		t.action.Name = *td.Name
	case class == ClassMCP:
		return t, b.errf(key, "an mcp test takes name (and no path or command)")
	case class == ClassShell && td.Command != nil && td.Path == nil:
		t.action.Command = *td.Command
	case class != ClassShell && td.Path != nil && td.Command == nil:
		t.action.Paths = []Path{{Requested: *td.Path}}
	case class == ClassShell:
		return t, b.errf(key, "a shell test takes command (and no path)")
	default:
		return t, b.errf(key, "a %s test takes path (and no command)", class)
	}
	return t, nil
}

// selfTest runs the policy's own [[test]] entries.
func (p *Policy) selfTest() error {
	for _, t := range p.tests {
		r := p.Decide(t.action)
		if r.Decision == t.expect {
			continue
		}
		what := t.action.Command
		if t.action.Class == ClassMCP {
			what = t.action.Name
		} else if t.action.Class != ClassShell {
			what = t.action.Paths[0].Requested
		}
		return &LoadError{File: p.name, Key: t.key, Line: t.line, Err: fmt.Errorf(
			"%w: %s %q: want %s, got %s (rule %s, %s: %s)",
			ErrSelfTest, t.action.Class, what, t.expect, r.Decision, r.Rule, r.Fact, r.Reason)}
	}
	return nil
}

// coverageWarnings reports rules that do not do what their author likely
// meant: allow patterns that a deny rule fully covers (deny wins, so they
// never take effect), absolute deny patterns that can only match outside
// the workspace, command names with spaces in them, allow rules that let
// a wrapper or shell run anything, and writes allowed into .git/.
func coverageWarnings(rules []*rule) []string {
	out := lintRules(rules)
	for _, a := range rules {
		if a.decision != Allow {
			continue
		}
		for _, d := range rules {
			if d.decision != Deny || d.class != a.class {
				continue
			}
			for _, ap := range a.commands {
				for _, dp := range d.commands {
					if ap.coveredBy(dp) {
						out = append(out, fmt.Sprintf("rule %s: allow %q can never take effect: rule %s denies %q", a.id, ap.text, d.id, dp.text))
					}
				}
			}
			for _, ap := range a.paths {
				for _, dp := range d.paths {
					if pathCoveredBy(ap, dp) {
						out = append(out, fmt.Sprintf("rule %s: allow %q can never take effect: rule %s denies %q", a.id, ap, d.id, dp))
					}
				}
			}
		}
	}
	return out
}

// interpreters run code given on their command line (-c, -e).
var interpreters = map[string]bool{
	"python": true, "python3": true, "perl": true, "ruby": true, "node": true,
	"php": true, "lua": true, "deno": true, "bun": true, "awk": true, "gawk": true,
}

// runsAnything are prefix patterns (with a final `*`) whose command runs
// whatever its arguments or its settings say, beyond the options the
// analysis judges (see options.go).
var runsAnything = map[string]string{
	"git":         "can change git's configuration (git config core.fsmonitor, aliases, hooks)",
	"git config":  "can set programs git runs (core.fsmonitor, core.pager, aliases)",
	"go":          "can run programs (go run, go generate, go tool)",
	"go run":      "builds and runs any program",
	"go generate": "runs the commands //go:generate lines name",
	"go tool":     "runs any tool binary",
	"npx":         "runs any package's program",
	"npm exec":    "runs any package's program",
	"cargo run":   "builds and runs any program",
	"make":        "runs the recipes of any makefile (make -f)",
}

// gitConfig is a file whose contents git runs (core.fsmonitor, hooks, aliases).
const gitConfig = ".git/config"

func lintRules(rules []*rule) []string {
	var out []string
	absAllow := map[Class]bool{}
	for _, r := range rules {
		for _, pat := range r.paths {
			if r.decision == Allow && strings.HasPrefix(pat, "/") {
				absAllow[r.class] = true
			}
		}
	}
	gitDenied := false
	for _, r := range rules {
		for _, pat := range r.paths {
			if r.class == ClassWrite && r.decision == Deny && matchPath(pat, gitConfig, Deny) {
				gitDenied = true
			}
		}
	}
	for _, r := range rules {
		for _, pat := range r.paths {
			switch {
			case r.decision == Deny && strings.HasPrefix(pat, "/") && !absAllow[r.class]:
				out = append(out, fmt.Sprintf("rule %s: %q is absolute, so it only names paths outside the workspace, which are denied anyway; for a workspace path write %q",
					r.id, pat, strings.TrimPrefix(pat, "/")))
			case r.decision == Allow && r.class == ClassWrite && !gitDenied && inGitDir(pat) && matchPath(pat, gitConfig, Allow):
				out = append(out, fmt.Sprintf("rule %s: %q lets the model write .git/, whose config and hooks git runs as code; add a write deny for \".git/**\"", r.id, pat))
			}
		}
		for _, cp := range r.commands {
			name := cp.words[0]
			switch {
			case strings.ContainsAny(name, " \t"):
				out = append(out, fmt.Sprintf("rule %s: the command name %q holds a space, so it matches no command; quote each word separately", r.id, name))
			case r.decision == Allow && cp.rest && len(cp.words) == 1 && (wrappers[name] || shells[name] || name == "eval"):
				out = append(out, fmt.Sprintf("rule %s: allow %q lets the model run any command through %s", r.id, cp.text, name))
			case r.decision == Allow && cp.rest && len(cp.words) == 1 && interpreters[name]:
				out = append(out, fmt.Sprintf("rule %s: allow %q lets the model run any program in %s", r.id, cp.text, name))
			case r.decision == Allow && cp.rest && runsAnything[strings.Join(cp.words, " ")] != "":
				out = append(out, fmt.Sprintf("rule %s: allow %q %s, so it lets the model run any program", r.id, cp.text, runsAnything[strings.Join(cp.words, " ")]))
			case r.decision == Allow && cp.rest && !isModelled(name):
				out = append(out, fmt.Sprintf("rule %s: allow %q: rubichan does not model the options of %s, so its final * may stand for one that runs a program or writes a file (see docs/policy.md for the programs it models)", r.id, cp.text, path.Base(name)))
			}
		}
	}
	return out
}

// CommandLine is the source name of rules given with --allow and --deny.
const CommandLine = "command line"

// WithRules returns a copy of the policy with rules from the command line
// added, each written "CLASS:PATTERN" (`shell:go test ./...`, `write:src/**`,
// `read:docs/**`). They are judged like the file's rules: a deny still wins
// over an allow. The file's [[test]] entries are not re-run: they describe
// the file, and the command line changes it on purpose. Errors are
// [*LoadError].
func (p *Policy) WithRules(allow, deny []string) (*Policy, error) {
	q := *p
	q.rules = append([]*rule(nil), p.rules...)
	for _, e := range []struct {
		flag  string
		specs []string
		d     Decision
	}{{"--allow", allow, Allow}, {"--deny", deny, Deny}} {
		for _, spec := range e.specs {
			r, err := cliRule(e.flag, spec, e.d)
			if err != nil {
				return nil, &LoadError{File: CommandLine, Key: e.flag, Err: err}
			}
			q.rules = append(q.rules, r)
		}
	}
	q.warnings = coverageWarnings(q.rules)
	return &q, nil
}

func cliRule(flag, spec string, d Decision) (*rule, error) {
	cls, pat, ok := strings.Cut(spec, ":")
	if !ok {
		return nil, fmt.Errorf("%q: want CLASS:PATTERN, such as shell:go test ./... or write:src/**", spec)
	}
	class, err := ParseClass(strings.TrimSpace(cls))
	if err != nil {
		return nil, fmt.Errorf("%q: %w", spec, err)
	}
	r := &rule{id: flag + " " + spec, class: class, decision: d, reason: "given with " + flag}
	if pat == "" {
		return nil, errors.New(spec + ": empty pattern")
	}
	if class == ClassMCP {
		n, err := parseNamePattern(pat)
		if err != nil {
			return nil, err
		}
		r.names = []string{n}
		return r, nil
	}
	if class == ClassShell {
		cp, err := parseCommandPattern(pat)
		if err != nil {
			return nil, err
		}
		r.commands = []cmdPattern{cp}
		return r, nil
	}
	p, err := parsePathPattern(pat)
	if err != nil {
		return nil, err
	}
	r.paths = []string{p}
	return r, nil
}
