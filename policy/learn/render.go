package learn

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/rubichan/rubichan/policy"
)

// header is the start of a learned policy that has no base: the built-in
// default's settings, with reads allowed (the built-in read behaviour,
// also when a read rule is learned) and "ask" refused in headless runs.
const header = `version = 1

[defaults]
decision     = "ask"
headless_ask = "deny"

[tools]
read  = "allow"
write = "ask"
shell = "ask"
mcp   = "ask"
`

// plan is one learned rule: its pattern, the calls it covers, why it is
// literal, and the neighbours it must not allow.
type plan struct {
	class      policy.Class
	pattern    string
	note       string
	calls      []Call
	neighbours []policy.Action
}

// plans turns the needs into rules: commands of one group with several
// variants become `GROUP *` where that is safe, writes of several files in
// one directory its glob; the rest stay literal.
func (l *learner) plans() []*plan {
	var out []*plan
	groups := map[string][]*need{}
	for _, n := range l.needs {
		if len(n.calls) == 0 {
			continue
		}
		switch {
		case n.class == policy.ClassShell && n.group != "":
			groups[n.group] = append(groups[n.group], n)
		case n.class == policy.ClassWrite:
			d := path.Dir(n.value)
			groups["\x00"+d] = append(groups["\x00"+d], n)
		default:
			out = append(out, literalPlan(n))
		}
	}
	for key, ns := range groups {
		var g *plan
		if len(ns) > 1 && strings.HasPrefix(key, "\x00") {
			g = l.globPlan(key[1:], ns)
		} else if len(ns) > 1 {
			g = l.starPlan(key, ns)
		}
		if g != nil {
			out = append(out, g)
			continue
		}
		for _, n := range ns {
			out = append(out, literalPlan(n))
		}
	}
	slices.SortFunc(out, func(a, b *plan) int {
		if a.class != b.class {
			return classRank(a.class) - classRank(b.class)
		}
		return strings.Compare(a.pattern, b.pattern)
	})
	return out
}

func classRank(c policy.Class) int {
	return slices.Index([]policy.Class{policy.ClassShell, policy.ClassWrite, policy.ClassRead, policy.ClassMCP}, c)
}

// literalPlan is the rule naming exactly what n needs. Its neighbours
// are the program-running options of its program (for a command) and
// the guarded and secret paths (for a write): the literal rule must not
// reach them either.
func literalPlan(n *need) *plan {
	p := &plan{class: n.class, pattern: n.value, note: n.note, calls: n.calls}
	switch {
	case n.class == policy.ClassShell && n.group != "":
		p.neighbours = runNeighbours(n.group)
	case n.class == policy.ClassWrite:
		p.neighbours = []policy.Action{
			{Class: policy.ClassWrite, Paths: []policy.Path{{Requested: ".git/config"}}},
			{Class: policy.ClassRead, Paths: []policy.Path{{Requested: ".env"}}},
		}
	}
	return p
}

// runNeighbours are up to three commands of group with an option that
// runs another program.
func runNeighbours(group string) []policy.Action {
	var out []policy.Action
	for _, cmd := range runOptionCommands(group) {
		if len(out) < 3 {
			out = append(out, policy.Action{Class: policy.ClassShell, Command: cmd})
		}
	}
	return out
}

// runOptionCommands are the commands of group with each option the
// policy knows runs another program (policy.RunOptions): "group opt",
// an option that takes its value after "=" given "sh".
func runOptionCommands(group string) []string {
	words := strings.Fields(group)
	sub := ""
	if len(words) > 1 {
		sub = words[1]
	}
	var out []string
	for _, opt := range policy.RunOptions(path.Base(words[0]), sub) {
		cmd := group + " " + opt
		if strings.HasSuffix(opt, "=") {
			cmd += "sh"
		}
		out = append(out, cmd)
	}
	return out
}

// starPlan is `GROUP *` for the commands ns, or nil when a variant would
// not be allowed by it or it would allow an option that runs a program.
func (l *learner) starPlan(group string, ns []*need) *plan {
	p := &plan{class: policy.ClassShell, pattern: group + " *"}
	for _, n := range ns {
		if d, _ := commandDecision(l.ref, []string{p.pattern}, n.value); d != policy.Allow {
			return nil
		}
		p.calls = mergeCalls(p.calls, n.calls)
	}
	for _, cmd := range runOptionCommands(group) {
		if d, _ := commandDecision(l.ref, []string{p.pattern}, cmd); d == policy.Allow {
			return nil
		}
	}
	p.neighbours = runNeighbours(group)
	return p
}

// globPlan is `DIR/*` for the writes ns in DIR, or nil when the glob
// could cover a guarded path.
func (l *learner) globPlan(dir string, ns []*need) *plan {
	glob := dir + "/*"
	outside := path.Dir(dir) + "/outside.txt"
	if dir == "." {
		glob, outside = "*", "outside/outside.txt"
	}
	for _, g := range append([]string{".git", ".rubichan/policy.toml"}, l.guarded...) {
		if ok, _ := path.Match(glob, g); ok || strings.Contains(glob, ".git") {
			return nil
		}
	}
	p := &plan{class: policy.ClassWrite, pattern: glob}
	for _, n := range ns {
		p.calls = mergeCalls(p.calls, n.calls)
	}
	p.neighbours = []policy.Action{
		{Class: policy.ClassWrite, Paths: []policy.Path{{Requested: path.Clean(outside)}}},
		{Class: policy.ClassWrite, Paths: []policy.Path{{Requested: ".git/config"}}},
		{Class: policy.ClassRead, Paths: []policy.Path{{Requested: ".env"}}},
	}
	return p
}

func mergeCalls(have, more []Call) []Call {
	for _, c := range more {
		if !slices.ContainsFunc(have, func(o Call) bool { return o.Session == c.Session && o.ID == c.ID }) {
			have = append(have, c)
		}
	}
	return have
}

// render writes the policy: the head (the header, or the base followed
// by a marker), a commented rule per plan, the left-out calls, and the
// self-tests, whose expectations for the neighbours are the rules'
// decisions (a neighbour the rules allow is dropped: another learned rule
// covers it).
func (l *learner) render(head []byte, based bool, sessions []string, withTests bool) (text []byte, tests, rules int) {
	var b strings.Builder
	shown := make([]string, len(sessions))
	for i, s := range sessions {
		shown[i] = oneLine(s)
	}
	from := "session " + strings.Join(shown, ", ")
	if len(sessions) > 1 {
		from = "sessions " + strings.Join(shown, ", ")
	}
	if based {
		b.Write(head)
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\n# ---- learned by rubichan policy learn from %s: the rules below were missing above ----\n", from)
	} else {
		fmt.Fprintf(&b, "# Learned by rubichan policy learn from %s.\n", from)
		b.WriteString("# Review every rule before you commit it; the [[test]] entries at the end are its\n")
		b.WriteString("# self-tests (rubichan policy check --policy FILE runs them).\n\n")
		b.WriteString(header)
	}
	plans := l.plans()
	n := 0
	for _, p := range plans {
		// Numbered in order, skipping the ids a base has: a base learned
		// before holds learned-CLASS-N ids of its own.
		n++
		for l.ref.HasRule(fmt.Sprintf("learned-%s-%d", p.class, n)) {
			n++
		}
		writeRule(&b, n, p)
	}
	writeLeft(&b, l.left)
	ruled, err := policy.Parse("learned policy", []byte(b.String()))
	if err != nil || !withTests {
		return []byte(b.String()), 0, len(plans) // Learn reports the error
	}
	seen := map[string]bool{}
	for _, p := range plans {
		for _, c := range p.calls {
			tests += writeTest(&b, seen, c.Action(), policy.Allow)
		}
		for _, a := range p.neighbours {
			if d := ruled.Decide(a).Decision; d != policy.Allow {
				tests += writeTest(&b, seen, a, d)
			}
		}
	}
	return []byte(b.String()), tests, len(plans)
}

func writeRule(b *strings.Builder, n int, p *plan) {
	fmt.Fprintf(b, "\n# %s (%d %s)\n", origin(p.calls), len(p.calls), plural(len(p.calls), "call", "calls"))
	if p.note != "" {
		fmt.Fprintf(b, "# kept literal: %s\n", oneLine(p.note))
	}
	key := "commands"
	switch p.class {
	case policy.ClassWrite, policy.ClassRead:
		key = "paths"
	case policy.ClassMCP:
		key = "names"
	}
	fmt.Fprintf(b, "[[rule]]\nid       = \"learned-%s-%d\"\ntool     = %q\ndecision = \"allow\"\n%-8s = [%s]\nreason   = \"learned from a run\"\n",
		p.class, n, p.class.String(), key, tomlString(p.pattern))
}

// origin names the sessions and call ids a rule came from: "from s1:
// call_1_0, call_1_1; s2: call_1_0".
func origin(calls []Call) string {
	var parts []string
	for i := 0; i < len(calls); {
		j := i
		var ids []string
		for ; j < len(calls) && calls[j].Session == calls[i].Session; j++ {
			ids = append(ids, oneLine(calls[j].ID))
		}
		parts = append(parts, oneLine(calls[i].Session)+": "+strings.Join(ids, ", "))
		i = j
	}
	return "from " + strings.Join(parts, "; ")
}

func writeLeft(b *strings.Builder, left []Left) {
	if len(left) == 0 {
		return
	}
	b.WriteString("\n# Left out: calls no learned rule allows; a person decides them.\n")
	for _, l := range left {
		fmt.Fprintf(b, "# left out: %s %s: %s — %s\n", oneLine(l.Call.Session), oneLine(l.Call.ID), oneLine(l.Call.what()), oneLine(l.Why))
	}
}

// writeTest writes one [[test]] entry unless an equal one was written.
func writeTest(b *strings.Builder, seen map[string]bool, a policy.Action, d policy.Decision) int {
	field, value := "command", a.Command
	switch a.Class {
	case policy.ClassMCP:
		field, value = "name", a.Name
	case policy.ClassRead, policy.ClassWrite:
		field, value = "path", a.Paths[0].Requested
	}
	k := a.Class.String() + "\x00" + value
	if seen[k] {
		return 0
	}
	seen[k] = true
	fmt.Fprintf(b, "\n[[test]]\ntool    = %q\n%-7s = %s\nexpect  = %q\n", a.Class.String(), field, tomlString(value), d.String())
	return 1
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// oneLine makes s fit a comment line: a string with a control character
// is quoted. Every text from a session log that a comment holds goes
// through it — the session and call ids too (a provider picks its calls'
// ids): a newline would end the comment and write TOML of its own.
func oneLine(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return strconv.QuoteToASCII(s)
	}
	return s
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
