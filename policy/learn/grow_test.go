package learn

import (
	"regexp"
	"testing"

	"github.com/rubichan/rubichan/policy"
)

// TestLearnGrowsALearnedPolicy follows docs/policy-learn.md's "Grow it":
// a learned policy is committed, and the next run is learned with it as
// --base. The rules added must not reuse an id of the base's learned
// rules (a duplicate id does not load), and the grown file keeps the
// base's rules and adds only the missing one.
func TestLearnGrowsALearnedPolicy(t *testing.T) {
	t.Parallel()
	first, _ := mustLearn(t, []Call{
		sh("call_1_0", "go test ./pkg/a -run X", Ran),
		sh("call_2_0", "go test ./...", Ran),
		wr("call_3_0", "pkg/a/x.go", Ran),
	}, Options{})
	second := []Call{
		{Session: "s2", ID: "call_1_0", Class: policy.ClassShell, Command: "go vet ./...", Outcome: Denied},
		{Session: "s2", ID: "call_2_0", Class: policy.ClassWrite, Path: "docs/a.md", Outcome: Ran},
	}
	// Not mustLearn: the grown file holds the base's self-tests too.
	grown, err := Learn(second, Options{Base: first.Text, BaseName: "ci.toml"})
	if err != nil {
		t.Fatalf("Learn with a learned base: %v", err)
	}
	p, err := policy.Parse("ci.toml.new", grown.Text)
	if err != nil {
		t.Fatalf("the grown policy does not load: %v\n%s", err, grown.Text)
	}
	for _, c := range second {
		if d := p.Decide(c.Action()).Decision; d != policy.Allow {
			t.Errorf("grown policy gives %s for %+v", d, c)
		}
	}
	if grown.Rules != 2 {
		t.Errorf("grown: %d rules learned, want 2 (go vet, docs/a.md)\n%s", grown.Rules, grown.Text)
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^id\s*=\s*"([^"]+)"`).FindAllSubmatch(grown.Text, -1) {
		ids[string(m[1])]++
	}
	if len(ids) != first.Rules+2 {
		t.Errorf("grown policy has rule ids %v, want %d distinct (the base's %d, 2 new)\n%s", ids, first.Rules+2, first.Rules, grown.Text)
	}
	again, err := Learn(second, Options{Base: first.Text, BaseName: "ci.toml"})
	if err != nil || string(again.Text) != string(grown.Text) {
		t.Errorf("learning again gives other bytes (err %v)", err)
	}
}
