package skills

import (
	"fmt"
	"strings"
	"testing"
)

// fakeSkill is a skill with a description of typical length (about 120
// characters, the spec's examples' size) under a typical CI path.
func fakeSkill(i int) Skill {
	name := fmt.Sprintf("procedure-%02d", i)
	return Skill{
		Frontmatter: Frontmatter{Name: name,
			Description: "Follow the team's procedure for task " + name + ". Use when the job asks for it or the change touches its area of the code."},
		File: "/home/runner/work/repo/repo/.agents/skills/" + name + "/SKILL.md", Trusted: true,
	}
}

func TestCatalogue(t *testing.T) {
	t.Parallel()
	c := Catalogue([]Skill{fakeSkill(1), fakeSkill(2)}, DefaultCatalogueMax)
	for _, want := range []string{
		"- procedure-01: Follow the team's procedure for task procedure-01.",
		"(/home/runner/work/repo/repo/.agents/skills/procedure-02/SKILL.md)",
		"read its SKILL.md",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("catalogue lacks %q:\n%s", want, c)
		}
	}
	if Catalogue(nil, DefaultCatalogueMax) != "" {
		t.Error("an empty catalogue is not empty text")
	}
}

func TestCatalogueBounded(t *testing.T) {
	t.Parallel()
	var ss []Skill
	for i := range 200 {
		ss = append(ss, fakeSkill(i))
	}
	c := Catalogue(ss, 4096)
	if len(c) > 4096 {
		t.Errorf("catalogue is %d bytes, over its bound 4096", len(c))
	}
	if !strings.Contains(c, "more skills left out") || !strings.Contains(c, "procedure-00") {
		t.Errorf("the bounded catalogue does not say skills were left out:\n%s", c)
	}
	if strings.Contains(c, "procedure-199") {
		t.Error("the last skill is listed past the bound")
	}
}

// TestCatalogueBytes measures what the catalogue costs in the system
// prompt: the fixed header, each entry, and 50 skills — and what the
// alternative, a `skill` tool, would add to every request instead.
func TestCatalogueBytes(t *testing.T) {
	t.Parallel()
	one := Catalogue([]Skill{fakeSkill(1)}, DefaultCatalogueMax)
	two := Catalogue([]Skill{fakeSkill(1), fakeSkill(2)}, DefaultCatalogueMax)
	var fifty []Skill
	for i := range 50 {
		fifty = append(fifty, fakeSkill(i))
	}
	c50 := Catalogue(fifty, DefaultCatalogueMax)
	entry := len(two) - len(one)
	header := len(one) - entry
	t.Logf("catalogue: header %d bytes, %d bytes per entry (a %d-character description), 50 skills %d bytes (~%d tokens at 4 bytes a token)",
		header, entry, len(fakeSkill(1).Description), len(c50), len(c50)/4)
	t.Logf("a skill tool's spec would add %d bytes to every request besides", len(SkillToolSpecJSON))
	if strings.Contains(c50, "left out") {
		t.Errorf("50 typical skills do not fit the default bound %d: %d bytes", DefaultCatalogueMax, len(c50))
	}
	if entry > 300 {
		t.Errorf("an entry costs %d bytes, over the issue's ~100 tokens", entry)
	}
}

func BenchmarkCatalogue50(b *testing.B) {
	var ss []Skill
	for i := range 50 {
		ss = append(ss, fakeSkill(i))
	}
	var n int
	for b.Loop() {
		n = len(Catalogue(ss, DefaultCatalogueMax))
	}
	b.ReportMetric(float64(n), "prompt-bytes")
	b.ReportMetric(float64(n)/50, "bytes/skill")
}
