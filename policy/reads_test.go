package policy

import (
	"slices"
	"testing"
)

// TestWithReads: a folder a run layers in (a skill's, outside the
// workspace) is readable, exactly it: not its parent, never written, and a
// deny — the secret rules', a --deny's — still wins over it.
func TestWithReads(t *testing.T) {
	t.Parallel()
	base, err := Default().WithRules(nil, []string{"read:/opt/skills/rel/private/**"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := base.WithReads(ReadGrant{Dir: "/opt/skills/rel", What: "skill rel"}, ReadGrant{Dir: "/opt/odd[dir]", What: "skill odd"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		class Class
		path  string
		want  Decision
		rule  string
	}{
		{ClassRead, "/opt/skills/rel/SKILL.md", Allow, "skill rel"},
		{ClassRead, "/opt/skills/rel/scripts/run.sh", Allow, "skill rel"},
		{ClassRead, "/opt/odd[dir]/SKILL.md", Allow, "skill odd"},
		{ClassRead, "/opt/oddd/SKILL.md", Deny, RuleGuard},
		{ClassRead, "/opt/skills/other/SKILL.md", Deny, RuleGuard},
		{ClassRead, "/opt/skills/rel/.env", Deny, "default-secrets"},
		{ClassRead, "/opt/skills/rel/private/x", Deny, "--deny read:/opt/skills/rel/private/**"},
		{ClassRead, "/opt/skills/rel/a/b/id_rsa", Deny, "default-secrets"},
		{ClassWrite, "/opt/skills/rel/SKILL.md", Deny, RuleGuard},
	} {
		r := p.Decide(Action{Class: tc.class, Paths: []Path{{Requested: tc.path}}})
		if r.Decision != tc.want || tc.rule != "" && r.Rule != tc.rule {
			t.Errorf("%s %s: got %s by %q, want %s by %q", tc.class, tc.path, r.Decision, r.Rule, tc.want, tc.rule)
		}
	}
	if r := base.Decide(Action{Class: ClassRead, Paths: []Path{{Requested: "/opt/skills/rel/SKILL.md"}}}); r.Decision == Allow {
		t.Error("WithReads changed the original policy")
	}
	var dirs []string
	for _, r := range p.ExtraRoots() {
		if r.Write {
			t.Errorf("root %s is writable", r.Dir)
		}
		dirs = append(dirs, r.Dir)
	}
	if !slices.Contains(dirs, "/opt/skills/rel") {
		t.Errorf("ExtraRoots = %v, want /opt/skills/rel among them", dirs)
	}
	if _, err := base.WithReads(ReadGrant{Dir: "relative/dir", What: "x"}); err == nil {
		t.Error("a relative folder was granted")
	}
}
