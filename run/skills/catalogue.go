package skills

import (
	"fmt"
	"strings"
)

// DefaultCatalogueMax bounds the catalogue in the system prompt, in bytes:
// about 50 skills of typical descriptions (see TestCatalogueBytes).
const DefaultCatalogueMax = 16 << 10

// catalogueHeader tells the model what the catalogue is and how a skill is
// used: read on demand through the read tool, scripts through bash.
const catalogueHeader = `# Skills

Skills are the team's procedures for particular tasks. When the task matches a skill's description, read its SKILL.md with the read tool first and follow it. Read the files it names (relative to its folder) only when you need them; run its scripts with the bash tool like any command.

`

// SkillToolSpecJSON is the spec a dedicated `skill` tool would send with
// every request — what the read tool costs nothing extra for. It is kept
// only to measure the choice (TestCatalogueBytes): the catalogue is the
// same either way (its entries name each SKILL.md's path, 207 bytes an
// entry, 10,646 bytes for 50 skills), and the tool would add 262 bytes to
// every request and a second path to confine and judge, where the read tool
// is already confined by the workspace and the policy.
const SkillToolSpecJSON = `{"name":"skill","description":"Activate a skill: returns its SKILL.md. Read the files it names with the read tool.","input_schema":{"type":"object","properties":{"name":{"type":"string","description":"the skill's name, from the catalogue"}},"required":["name"]}}`

// Catalogue is the system prompt's list of offered skills: the header,
// then one line per skill, "- NAME: DESCRIPTION (PATH OF SKILL.md)", at
// most max bytes in all; when skills are left out to stay within it, a
// last line says how many. No skills: "".
func Catalogue(offered []Skill, max int) string {
	text, _ := CatalogueListed(offered, max)
	return text
}

// CatalogueListed is [Catalogue] and how many skills it lists.
func CatalogueListed(offered []Skill, max int) (string, int) {
	if len(offered) == 0 {
		return "", 0
	}
	lines := make([]string, len(offered))
	total := len(catalogueHeader)
	for i, s := range offered {
		lines[i] = fmt.Sprintf("- %s: %s (%s)\n", s.Name, strings.Join(strings.Fields(s.Description), " "), s.File)
		total += len(lines[i])
	}
	var b strings.Builder
	b.WriteString(catalogueHeader)
	if total <= max {
		for _, l := range lines {
			b.WriteString(l)
		}
		return b.String(), len(lines)
	}
	for i, l := range lines {
		note := fmt.Sprintf("(%d more skills left out to keep this list short; `rubichan skills list` shows them all)\n", len(lines)-i)
		if b.Len()+len(l)+len(note) > max {
			b.WriteString(note)
			return b.String(), i
		}
		b.WriteString(l)
	}
	return b.String(), len(lines)
}
