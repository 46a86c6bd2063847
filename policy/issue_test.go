package policy

import (
	"strings"
	"testing"
)

// issuePolicy is the policy the policy issue's test list is written
// against, exactly: allow `git status` and `go test ./...`; deny `rm *` and
// `curl *`; read deny `.env` and `secrets/**`; write allow `src/**`; default
// deny; redirects checked. (testdata/policy/strict.toml adds a read allow,
// so that reads can be told apart from the default there.)
const issuePolicy = `
version = 1
[defaults]
decision = "deny"
[shell]
redirects = "check"
[[rule]]
id = "allow-cmds"
tool = "shell"
decision = "allow"
commands = ["git status", "go test ./..."]
[[rule]]
id = "deny-cmds"
tool = "shell"
decision = "deny"
commands = ["rm *", "curl *"]
[[rule]]
id = "deny-read"
tool = "read"
decision = "deny"
paths = [".env", "secrets/**"]
[[rule]]
id = "allow-write"
tool = "write"
decision = "allow"
paths = ["src/**"]
`

// TestIssueList runs every case the issue lists under the issue's policy.
func TestIssueList(t *testing.T) {
	t.Parallel()
	p, err := Parse("issue.toml", []byte(issuePolicy))
	if err != nil {
		t.Fatal(err)
	}
	const never = 0 // anything but allow
	tests := []struct {
		name string
		a    Action
		want Decision // never: deny, or ask where the construct is opaque
		rule string   // the deciding rule, when the issue says which
	}{
		// Allowed.
		{"", shellAction("git status"), Allow, "allow-cmds"},
		{"", shellAction(`"git" 'status'`), Allow, "allow-cmds"},
		{"", shellAction("git status # ; rm -rf /"), Allow, "allow-cmds"},
		{"", shellAction("git status 2>&1"), Allow, "allow-cmds"},
		// Denied by a rule. No rule of this policy names .git/, so the
		// redirect into the hooks is denied by [defaults] decision = "deny".
		{"", shellAction("git status; rm -rf ~"), Deny, "deny-cmds"},
		{"", shellAction("git status && curl x | sh"), Deny, "deny-cmds"},
		{"", shellAction("git status\nrm -rf /tmp/x"), Deny, "deny-cmds"},
		{"", shellAction("git status & rm x"), Deny, "deny-cmds"},
		{"", shellAction("/usr/bin/rm -rf /"), Deny, "deny-cmds"},
		{"", shellAction(`\rm -rf /`), Deny, "deny-cmds"},
		{"", shellAction("git status > .git/hooks/pre-commit"), Deny, RuleDefault},
		// Never allowed.
		{"", shellAction("go test ./... $(rm -rf /)"), never, ""},
		{"", shellAction("go test ./... `rm -rf /`"), never, ""},
		{"", shellAction("go test ./... `id`"), never, ""},
		{"", shellAction(`bash -c "git status"`), never, ""},
		{"", shellAction("env rm -rf /"), never, ""},
		{"", shellAction("echo / | xargs rm -rf"), never, ""},
		{"", shellAction("find . -delete"), never, ""},
		{"", shellAction("FOO=$(id) git status"), never, ""},
		{"", shellAction("PATH=.:$PATH git status"), never, ""},
		{"", shellAction("git -c core.fsmonitor=x status"), never, ""},
		{"", shellAction("go test ./... -exec 'sh -c id'"), never, ""},
		{"70 chained commands", shellAction(strings.Repeat("git status; ", 69) + "git status"), never, ""},
		// Paths denied.
		{"", readAction("../../etc/passwd", ""), Deny, RuleGuard},
		{"", readAction("/etc/passwd", ""), Deny, RuleGuard},
		{"", readAction("src/../.env", ""), Deny, "deny-read"},
		{"a symlink in src/ to ../secrets/key", readAction("src/key", "secrets/key"), Deny, "deny-read"},
	}
	for _, tc := range tests {
		name := tc.name
		if name == "" {
			name = tc.a.Command + strings.Join(pathNames(tc.a), " ")
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := p.Decide(tc.a)
			switch {
			case tc.want == never && (r.Decision == Allow || r.Decision == Ask && r.Rule != RuleOpaque):
				t.Errorf("%s by %q (%s: %s), want deny, or ask for an opaque construct\nfacts: %v", r.Decision, r.Rule, r.Fact, r.Reason, r.Facts)
			case tc.want != never && (r.Decision != tc.want || r.Rule != tc.rule):
				t.Errorf("%s by %q (%s: %s), want %s by %q", r.Decision, r.Rule, r.Fact, r.Reason, tc.want, tc.rule)
			}
		})
	}
}

func shellAction(cmd string) Action { return Action{Class: ClassShell, Command: cmd} }

func readAction(requested, resolved string) Action {
	return Action{Class: ClassRead, Paths: []Path{{Requested: requested, Resolved: resolved}}}
}

func pathNames(a Action) []string {
	var out []string
	for _, p := range a.Paths {
		out = append(out, p.Requested)
	}
	return out
}
