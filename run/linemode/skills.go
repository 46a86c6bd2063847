package linemode

import (
	"fmt"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/skills"
)

// listSkills is /skills: the offered skills, and what discovery skipped.
func (c *chat) listSkills() {
	set := c.st.Skills
	if len(set.Offered) == 0 {
		c.note("no skills offered")
	}
	for _, s := range set.Offered {
		c.note("  %-20s %s", s.Name, strings.Join(strings.Fields(s.Description), " "))
	}
	for _, n := range set.Notes {
		c.note("  (%s)", n)
	}
}

// chooseSkill is /skill NAME: the skill's SKILL.md goes before the next
// line, once. The activation is a notice the session records.
func (c *chat) chooseSkill(name string) {
	for _, s := range c.st.Skills.Offered {
		if s.Name == name {
			c.skill = s
			c.note("skill %s activated for the next line", name)
			c.sinks.Emit(agent.Event{Kind: agent.EventNotice, Text: fmt.Sprintf("skill %s activated (/skill)", name)})
			return
		}
	}
	c.note("/skill: no skill %q; /skills lists them", name)
}

// withSkill puts the skill /skill chose before text, and forgets it: the
// SKILL.md as a <skill> block (its file read again now, capped), then the
// line.
func (c *chat) withSkill(text string) string {
	s := c.skill
	c.skill = skills.Skill{}
	if s.Name == "" {
		return text
	}
	data, err := s.Read()
	if err != nil {
		c.note("/skill: %v", err)
		return text
	}
	return fmt.Sprintf("<skill name=%q path=%q>\n%s\n</skill>\n\n%s", s.Name, s.File, strings.TrimRight(string(data), "\n"), text)
}
