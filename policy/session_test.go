package policy

import (
	"errors"
	"slices"
	"testing"
)

func TestSessionApprovals(t *testing.T) {
	t.Parallel()
	p, err := Parse("s.toml", []byte(`
[defaults]
decision = "ask"
[shell]
plain_programs = false
[[rule]]
id = "no-rm"
tool = "shell"
decision = "deny"
commands = ["rm *"]
[[rule]]
id = "no-secrets"
tool = "write"
decision = "deny"
paths = ["secrets/**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	s := p.NewSession()
	shell := func(cmd string) Action { return Action{Class: ClassShell, Command: cmd} }
	write := func(path string) Action { return Action{Class: ClassWrite, Paths: []Path{{Requested: path}}} }

	r := s.Decide(shell("make test"))
	if r.Decision != Ask {
		t.Fatalf("before approval: %s", r.Decision)
	}
	if err := s.Approve(r); err != nil {
		t.Fatal(err)
	}
	if r := s.Decide(shell("make  'test'")); r.Decision != Allow || r.Rule != RuleSession {
		t.Errorf("same argv after approval: %s by %s", r.Decision, r.Rule)
	}
	for _, cmd := range []string{"make test2", "make test x", "make", "make test; ls", "make test > out"} {
		if r := s.Decide(shell(cmd)); r.Decision == Allow {
			t.Errorf("%q allowed by an approval of `make test`", cmd)
		}
	}
	if r := p.Decide(shell("make test")); r.Decision != Ask {
		t.Errorf("the approval leaked into the policy: %s", r.Decision)
	}

	if r := s.Decide(write("src/a.go")); r.Decision != Ask {
		t.Fatalf("write before approval: %s", r.Decision)
	} else if err := s.Approve(r); err != nil {
		t.Fatal(err)
	}
	if r := s.Decide(write("src/a.go")); r.Decision != Allow {
		t.Errorf("approved write: %s", r.Decision)
	}
	if r := s.Decide(write("src/b.go")); r.Decision != Ask {
		t.Errorf("other write: %s", r.Decision)
	}

	for name, cmd := range map[string]string{
		"deny":    "make; rm -rf /",
		"opaque":  "make $(id)",
		"inexact": "make *.o",
	} {
		r := s.Decide(shell(cmd))
		if err := s.Approve(r); !errors.Is(err, ErrNotApprovable) {
			t.Errorf("%s: Approve(%q) = %v, want ErrNotApprovable", name, cmd, err)
		}
		if r := s.Decide(shell(cmd)); r.Decision == Allow {
			t.Errorf("%s: %q allowed after a refused approval", name, cmd)
		}
	}
	// an approval of `make` does not reach the same argv next to a deny
	if err := s.Approve(s.Decide(shell("make"))); err != nil {
		t.Fatal(err)
	}
	if r := s.Decide(shell("make; rm x")); r.Decision != Deny {
		t.Errorf("approval overrode a deny: %s", r.Decision)
	}
	if r := s.Decide(write("secrets/a")); r.Decision != Deny {
		t.Errorf("secrets write: %s", r.Decision)
	}
}

func TestSessionConcurrent(t *testing.T) {
	t.Parallel()
	s := Default().NewSession()
	done := make(chan struct{})
	for i := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := range 50 {
				a := Action{Class: ClassWrite, Paths: []Path{{Requested: string(rune('a'+i)) + "/" + string(rune('a'+j%26))}}}
				_ = s.Approve(s.Decide(a))
				if r := s.Decide(a); r.Decision != Allow {
					t.Errorf("%v: %s", a.Paths, r.Decision)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}

func TestSessionDenyAlways(t *testing.T) {
	t.Parallel()
	p, err := Parse("s.toml", []byte(`
[defaults]
decision = "ask"
[shell]
plain_programs = false
[[rule]]
id = "ok"
tool = "shell"
decision = "allow"
commands = ["ls"]
`))
	if err != nil {
		t.Fatal(err)
	}
	s := p.NewSession()
	shell := func(cmd string) Action { return Action{Class: ClassShell, Command: cmd} }
	if err := s.DenyAlways(s.Decide(shell("make test"))); err != nil {
		t.Fatal(err)
	}
	if r := s.Decide(shell("make test")); r.Decision != Deny || r.Rule != RuleSessionDeny {
		t.Errorf("denied fact: %s by %s", r.Decision, r.Rule)
	}
	if r := s.Decide(shell("make test2")); r.Decision != Ask {
		t.Errorf("another argv: %s", r.Decision)
	}
	if r := s.Decide(shell("ls")); r.Decision != Allow {
		t.Errorf("an allowed command: %s", r.Decision)
	}
	// a denial wins over a later approval of the same fact, which is refused
	if err := s.Approve(s.Decide(shell("make test"))); !errors.Is(err, ErrNotApprovable) {
		t.Errorf("approving a denied fact: %v", err)
	}
	if err := s.DenyAlways(s.Decide(shell("make $(id)"))); !errors.Is(err, ErrNotApprovable) {
		t.Errorf("denying an opaque command: %v", err)
	}
	if err := s.Approve(s.Decide(shell("go vet"))); err != nil {
		t.Fatal(err)
	}
	got := s.Rules()
	want := []string{"deny command: make test", "allow command: go vet"}
	if len(got) != len(want) {
		t.Fatalf("Rules() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("Rules()[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	if Approvable(p.Decide(shell("make $(id)"))) || !Approvable(p.Decide(shell("make x"))) || Approvable(p.Decide(shell("ls"))) {
		t.Error("Approvable: wrong for opaque, exact ask or allow")
	}
}

func TestRuleLines(t *testing.T) {
	t.Parallel()
	p, err := Parse("s.toml", []byte(`
[[rule]]
id = "no-net"
tool = "shell"
decision = "deny"
commands = ["curl *", "wget *"]
reason = "offline"
[[rule]]
id = "src"
tool = "write"
decision = "allow"
paths = ["src/**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	got := p.RuleLines()
	want := []string{"deny shell no-net: curl *, wget * (offline)", "allow write src: src/**"}
	if len(got) < len(want) {
		t.Fatalf("RuleLines() = %q, want %q first", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("RuleLines()[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}

// SessionFacts lists what "always" records: each asked part of a compound
// command on its own, once, and nothing for what cannot be answered so.
func TestSessionFacts(t *testing.T) {
	t.Parallel()
	p, err := Parse("s.toml", []byte(`
[defaults]
decision = "ask"
[shell]
plain_programs = false
[[rule]]
id = "ok"
tool = "shell"
decision = "allow"
commands = ["ls"]
[[rule]]
id = "no-rm"
tool = "shell"
decision = "deny"
commands = ["rm *"]
`))
	if err != nil {
		t.Fatal(err)
	}
	shell := func(cmd string) Action { return Action{Class: ClassShell, Command: cmd} }
	for cmd, want := range map[string][]string{
		"echo one":                           {"command: echo one"},
		"echo one && echo two":               {"command: echo one", "command: echo two"},
		"echo one; ls; echo one || echo two": {"command: echo one", "command: echo two"},
		"ls":                                 nil,
		"echo $(id)":                         nil,
		"echo one; rm x":                     nil,
	} {
		var got []string
		for _, f := range SessionFacts(p.Decide(shell(cmd))) {
			got = append(got, f.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("SessionFacts(%q) = %q, want %q", cmd, got, want)
		}
	}
	// A fact twice in a result is listed once, as it is recorded once.
	twice := Fact{Kind: FactCommand, Value: "make", Decision: Ask, exact: true}
	if got := SessionFacts(Result{Decision: Ask, Facts: []Fact{twice, twice}}); len(got) != 1 {
		t.Errorf("a fact twice: listed %v", got)
	}
	// What it lists is what Approve records, and all Approve records.
	s := p.NewSession()
	r := s.Decide(shell("echo one && echo two"))
	facts := SessionFacts(r)
	if err := s.Approve(r); err != nil {
		t.Fatal(err)
	}
	rules := s.Rules()
	if len(rules) != len(facts) {
		t.Fatalf("Approve recorded %v, SessionFacts listed %v", rules, facts)
	}
	for i, f := range facts {
		if rules[i].Kind != f.Kind || rules[i].Value != f.Value {
			t.Errorf("recorded %s, listed %s", rules[i], f)
		}
	}
	if r := s.Decide(shell("echo two")); r.Decision != Allow || r.Rule != RuleSession {
		t.Errorf("a part approved through the compound: %s by %s", r.Decision, r.Rule)
	}
}
