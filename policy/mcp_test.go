package policy

import (
	"strings"
	"testing"
)

func TestMCPDecide(t *testing.T) {
	t.Parallel()
	file := `
[[rule]]
id = "gh-read"
tool = "mcp"
decision = "allow"
names = ["github/get_*", "docs/**"]

[[rule]]
id = "no-delete"
tool = "mcp"
decision = "deny"
names = ["*/delete_*"]
reason = "deletes are for people"

[[test]]
tool = "mcp"
name = "github/get_issue"
expect = "allow"
`
	pol, err := Parse("p.toml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, rule string
		want       Decision
	}{
		{"github/get_issue", "gh-read", Allow},
		{"github/create_issue", ruleMCPDefault, Ask},
		{"docs/search", "gh-read", Allow},
		{"github/delete_repo", "no-delete", Deny},
		{"docs/delete_page", "no-delete", Deny},
		{"noslash", RuleGuard, Deny},
	} {
		r := pol.Decide(Action{Class: ClassMCP, Name: tc.name})
		if r.Decision != tc.want || r.Rule != tc.rule {
			t.Errorf("%s: got %s by %s, want %s by %s", tc.name, r.Decision, r.Rule, tc.want, tc.rule)
		}
	}
	r := pol.Decide(Action{Class: ClassMCP, Name: "github/delete_repo"})
	if msg := r.Message(); !strings.Contains(msg, `"no-delete"`) || !strings.Contains(msg, "mcp: github/delete_repo") {
		t.Errorf("message does not name the rule and tool: %s", msg)
	}
}

func TestMCPCommandLineAndDefaults(t *testing.T) {
	t.Parallel()
	q, err := Default().WithRules([]string{"mcp:github/get_*"}, []string{"mcp:github/get_secret"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Decision{
		"github/get_issue": Allow, "github/get_secret": Deny, "github/create_issue": Ask, "other/get_x": Ask,
	} {
		if got := q.Decide(Action{Class: ClassMCP, Name: name}).Decision; got != want {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
	r := q.Decide(Action{Class: ClassMCP, Name: "github/create_issue"})
	if got := q.AllowRules(Action{Class: ClassMCP, Name: "github/create_issue"}, r); len(got) != 1 || got[0] != "mcp:github/create_issue" {
		t.Errorf("allow rules: %q", got)
	}
	p, err := Parse("p.toml", []byte("[tools]\nmcp = \"deny\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Decide(Action{Class: ClassMCP, Name: "a/b"}); got.Decision != Deny || got.Rule != ruleMCPDefault {
		t.Errorf("[tools] mcp = deny: got %s by %s", got.Decision, got.Rule)
	}
}

func TestMCPRuleErrors(t *testing.T) {
	t.Parallel()
	for name, file := range map[string]string{
		"no names":     "[[rule]]\ntool = \"mcp\"\ndecision = \"allow\"\n",
		"paths":        "[[rule]]\ntool = \"mcp\"\ndecision = \"allow\"\npaths = [\"x\"]\nnames = [\"a/b\"]\n",
		"no slash":     "[[rule]]\ntool = \"mcp\"\ndecision = \"allow\"\nnames = [\"github\"]\n",
		"bad glob":     "[[rule]]\ntool = \"mcp\"\ndecision = \"allow\"\nnames = [\"a/[\"]\n",
		"names/shell":  "[[rule]]\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"ls\"]\nnames = [\"a/b\"]\n",
		"test no name": "[[test]]\ntool = \"mcp\"\npath = \"a/b\"\nexpect = \"ask\"\n",
	} {
		if _, err := Parse("p.toml", []byte(file)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Default().WithRules([]string{"mcp:github"}, nil); err == nil {
		t.Error("--allow mcp:github: no error")
	}
}
