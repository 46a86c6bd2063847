package policy

import "testing"

// TestUndecidedFactCountsAsDeny pins the fail-closed default of summarize:
// a fact no rule decided (the zero Decision) is a deny, whatever the other
// facts say, and a call of undecided facts alone is denied too.
func TestUndecidedFactCountsAsDeny(t *testing.T) {
	t.Parallel()
	tests := map[string][]Fact{
		"alone":              {{Kind: FactCommand, Value: "x"}},
		"after an allow":     {{Kind: FactRead, Value: "a", Decision: Allow, Rule: "r"}, {Kind: FactCommand, Value: "x"}},
		"before an allow":    {{Kind: FactCommand, Value: "x"}, {Kind: FactRead, Value: "a", Decision: Allow, Rule: "r"}},
		"beside an ask":      {{Kind: FactRead, Value: "a", Decision: Ask, Rule: "r"}, {Kind: FactCommand, Value: "x"}},
		"no facts at all":    nil,
		"two undecided ones": {{Kind: FactCommand, Value: "x"}, {Kind: FactCommand, Value: "y"}},
	}
	for name, facts := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if r := summarize(facts); r.Decision != Deny {
				t.Errorf("summarize(%v) = %s (%s), want deny", facts, r.Decision, r.Reason)
			}
		})
	}
}

// TestInterpretersNotCoveredByTheirRule pins two ways a program runs
// another: awk's program text (system(), pipes) is not covered by a rule
// for "awk *", and fish -c is unwrapped for the deny rules like bash -c:
// a rule for "fish *" cannot smuggle a denied rm through.
func TestInterpretersNotCoveredByTheirRule(t *testing.T) {
	t.Parallel()
	p, err := Parse("pins.toml", []byte(`
[[rule]]
id = "awk"
tool = "shell"
decision = "allow"
commands = ["awk *", "fish *"]
[[rule]]
id = "ls"
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
	tests := []struct {
		cmd  string
		want Decision
	}{
		{`awk 'BEGIN{system("rm -rf /")}'`, Ask},
		{`awk '{print | "sh"}' f`, Ask},
		{`fish -c 'rm -rf x'`, Deny},
		{`fish -c 'ls; rm -rf x'`, Deny},
		{`env fish -c 'rm -rf x'`, Deny},
		{`fish -c ls`, Allow},
		{`awk '{print $1}' f`, Allow},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			r := p.Decide(Action{Class: ClassShell, Command: tc.cmd})
			if r.Decision != tc.want {
				t.Errorf("Decide(%q) = %s by %q (%s: %s), want %s\nfacts: %v", tc.cmd, r.Decision, r.Rule, r.Fact, r.Reason, tc.want, r.Facts)
			}
		})
	}
}
