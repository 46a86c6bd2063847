package linemode

import (
	"github.com/rubichan/rubichan/run/structured"
	"github.com/rubichan/rubichan/toolkit"
)

// setSchema is /schema: "/schema FILE" makes the answers of the next
// lines JSON matching the schema in FILE (or inline JSON), "/schema off"
// ends that, "/schema" alone says which is on.
func (c *chat) setSchema(arg string) {
	slot, l := c.st.Structured, c.st.Agent
	switch arg {
	case "":
		if slot.On() {
			c.note("schema: on (/schema off ends it)")
		} else {
			c.note("schema: off (/schema FILE makes the answers JSON that matches it)")
		}
		return
	case "off":
		l.SetStructured(nil, toolkit.Spec{})
		slot.Set(nil)
		c.sinks.Text().SetStructured(false)
		c.note("schema: off")
		return
	}
	s, err := structured.LoadIn(arg, c.o.Dir, c.o.Dir)
	if err != nil {
		c.note("/schema: %v", err)
		return
	}
	plan := c.o.StructuredPlan(s, l.Model())
	var tool toolkit.Spec
	if plan.Mode == structured.Tool {
		tool = s.Tool()
	}
	l.SetStructured(plan.Format, tool)
	slot.Set(structured.NewCheck(s, structured.CheckOptions{Retries: c.o.SchemaRetries, Tool: plan.Mode == structured.Tool, Redact: c.sinks.Redactor()}))
	c.sinks.Text().SetStructured(true)
	c.note("schema: %s, asked for with the %s form (%s)", s.Source, plan.Mode, plan.Why)
}
