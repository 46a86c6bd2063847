package learn

import (
	"fmt"
	"slices"

	"github.com/rubichan/rubichan/policy"
)

// Outcome is what happened to a recorded call in its run.
type Outcome uint8

// Outcomes of a recorded call.
const (
	// Ran: the policy allowed the call (or a person approved it).
	Ran Outcome = iota + 1
	// Denied: the policy refused it.
	Denied
	// Deferred: the call needed approval and was left pending.
	Deferred
)

// Call is one recorded tool call.
type Call struct {
	// Session and ID name where the call was recorded.
	Session, ID string
	// Class is the tool class of the call.
	Class policy.Class
	// Command is a shell call's command line.
	Command string
	// Path is a read or write call's workspace-relative path.
	Path string
	// Name is an mcp call's SERVER/TOOL.
	Name string
	// Outcome is what happened to it in its run.
	Outcome Outcome
}

// Action is the call as the policy judges it.
func (c Call) Action() policy.Action {
	a := policy.Action{Class: c.Class, Command: c.Command, Name: c.Name}
	if c.Class == policy.ClassRead || c.Class == policy.ClassWrite {
		a.Paths = []policy.Path{{Requested: c.Path}}
	}
	return a
}

// what names the call for a comment: the command, "read PATH", "write
// PATH" or "mcp NAME".
func (c Call) what() string {
	switch c.Class {
	case policy.ClassShell:
		return c.Command
	case policy.ClassMCP:
		return "mcp " + c.Name
	}
	return c.Class.String() + " " + c.Path
}

// Options are the inputs of [Learn] besides the calls.
type Options struct {
	// Base is a policy file's contents the learned rules are added to
	// (only the rules it lacks); nil learns a policy of its own.
	Base []byte
	// BaseName names the base in errors and in the learned file.
	BaseName string
	// Guarded are workspace-relative paths no learned write rule may
	// cover besides .git and .rubichan/policy.toml: the policy file
	// being written, the session log.
	Guarded []string
}

// Left is a call the learned policy does not allow, and why.
type Left struct {
	Call Call
	Why  string
}

// Result is a learned policy.
type Result struct {
	// Text is the complete policy file, usable alone with --policy.
	Text []byte
	// Rules and Tests count the learned rules and their [[test]] entries.
	Rules, Tests int
	// Left are the calls left out, each with why; the file has a comment
	// for each.
	Left []Left
}

// Learn derives a policy from calls. The result loads with
// [policy.Parse] (its self-tests pass) and allows every call not in
// [Result.Left]. The same calls, in any order, give the same bytes.
// Errors come from a base that does not load.
func Learn(calls []Call, o Options) (*Result, error) {
	calls = canonical(calls)
	head := []byte(header)
	if o.Base != nil {
		head = o.Base
	}
	name := o.BaseName
	if name == "" {
		name = "the learned policy's header"
	}
	ref, err := policy.Parse(name, head)
	if err != nil {
		return nil, fmt.Errorf("learn: base policy: %w", err)
	}
	l := &learner{ref: ref, guarded: o.Guarded}
	for _, c := range calls {
		l.classify(c)
	}
	// A call the rules do not allow after all is left out with the
	// policy's reason, and the file is written again; each round leaves
	// out at least one call, so this ends.
	for range len(calls) + 1 {
		text, _, _ := l.render(head, o.Base != nil, sessions(calls), false)
		p, err := policy.Parse("learned policy", text)
		if err != nil {
			return nil, fmt.Errorf("learn: the learned rules do not load: %w", err)
		}
		if l.dropRefused(p) {
			continue
		}
		text, tests, rules := l.render(head, o.Base != nil, sessions(calls), true)
		if _, err := policy.Parse("learned policy", text); err != nil {
			return nil, fmt.Errorf("learn: the learned policy does not load: %w", err)
		}
		return &Result{Text: text, Rules: rules, Tests: tests, Left: l.left}, nil
	}
	return nil, fmt.Errorf("learn: the learned policy does not settle")
}

// canonical sorts the calls by session and id and drops repeats, so the
// output does not depend on their order.
func canonical(calls []Call) []Call {
	out := slices.Clone(calls)
	slices.SortStableFunc(out, func(a, b Call) int {
		if a.Session != b.Session {
			return cmpString(a.Session, b.Session)
		}
		return cmpCallID(a.ID, b.ID)
	})
	return slices.CompactFunc(out, func(a, b Call) bool { return a.Session == b.Session && a.ID == b.ID })
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpCallID orders call ids numerically where they differ in a number
// (call_2_0 before call_10_0), else as strings.
func cmpCallID(a, b string) int {
	for a != "" && b != "" {
		na, ra := leadingNumber(a)
		nb, rb := leadingNumber(b)
		if na >= 0 && nb >= 0 {
			if na != nb {
				return na - nb
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func leadingNumber(s string) (int, string) {
	n, i := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' && i < 9 {
		n = n*10 + int(s[i]-'0')
		i++
	}
	if i == 0 {
		return -1, s
	}
	return n, s[i:]
}

func sessions(calls []Call) []string {
	var out []string
	for _, c := range calls {
		if !slices.Contains(out, c.Session) {
			out = append(out, c.Session)
		}
	}
	return out
}
