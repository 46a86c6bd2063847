package linemode

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
)

// chatCommandHelp lists line mode's commands, for /help and for an
// unknown command.
var chatCommandHelp = [][2]string{
	{"/help", "this list"},
	{"/quit, /exit", "end the chat (also Ctrl-D)"},
	{"/clear", "start a new conversation (the session marks it)"},
	{"/model NAME", "use model NAME from the next request on"},
	{"/tools", "the tools offered and their policy class"},
	{"/policy", "the effective rules, with this session's answers"},
	{"/cost", "tokens and cost so far"},
	{"/session", "the session's id and file"},
	{"/retry", "run the last line again"},
	{"/diff", "what this chat changed in the workspace"},
	{"/compact", "compact the conversation now"},
	{"/skills", "the skills offered"},
	{"/skill NAME", "use skill NAME for the next line"},
	{"/schema FILE", "answer the next lines as JSON matching FILE; /schema off ends it"},
}

// command runs a line-mode command; it reports whether the chat ends.
func (c *chat) command(ctx context.Context, line string) bool {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/quit", "/exit":
		return true
	case "/help":
		c.help()
	case "/clear":
		c.clear()
	case "/model":
		c.setModel(arg)
	case "/tools":
		c.tools()
	case "/policy":
		c.policy()
	case "/cost":
		c.cost()
	case "/session":
		c.session()
	case "/retry":
		if c.lastLine == "" {
			c.note("nothing to retry yet")
			break
		}
		c.runLine(ctx, c.lastLine)
	case "/diff":
		c.diff()
	case "/compact":
		c.compactNow(ctx)
	case "/skills":
		c.listSkills()
	case "/skill":
		c.chooseSkill(arg)
	case "/schema":
		c.setSchema(arg)
	default:
		c.note("unknown command %s", name)
		c.help()
	}
	return false
}

func (c *chat) help() {
	c.note("commands:")
	for _, h := range chatCommandHelp {
		c.note("  %-13s %s", h[0], h[1])
	}
	c.note(`a line ending in \ goes on on the next line; """ starts and ends a block; Ctrl-C stops the running turn`)
}

// clear starts a new conversation: the next line is a first message. The
// session gets a "clear" line, after which a resumed session starts.
func (c *chat) clear() {
	c.st.Agent.Reset()
	c.st.Session.Clear()
	c.note("a new conversation begins")
}

// setModel switches the model of the next requests. Under --max-cost the
// chat keeps its model: the cap is priced at it.
func (c *chat) setModel(name string) {
	l := c.st.Agent
	switch {
	case name == "":
		c.note("model: %s (change it with /model NAME)", l.Model())
		return
	case c.o.ModelLocked:
		c.note("/model: --max-cost is priced at %s; start a new chat to use another model", l.Model())
		return
	}
	l.SetModel(name, c.o.CompactFor(name, c.sinks.Emit))
	c.note("model: %s", name)
}

// tools lists the tools offered to the model and the policy class each
// is judged by.
func (c *chat) tools() {
	for _, name := range c.st.Agent.ToolNames() {
		c.note("  %-6s %s", name, toolClass(name))
	}
}

// toolClass is the policy class of a built-in tool.
func toolClass(name string) string {
	switch name {
	case "read", "grep", "glob", "ls":
		return "read"
	case "write", "edit":
		return "write"
	case "bash":
		return "shell"
	}
	return "(decided per call)"
}

// policy shows the effective rules: the policy's, the command line's, the
// fallbacks, and the answers given in this session.
func (c *chat) policy() {
	pol := c.st.Policy
	c.note("policy: %s", pol.Name())
	for _, r := range pol.RuleLines() {
		c.note("  %s", r)
	}
	c.note("  otherwise: read %s, write %s, shell %s", pol.Fallback(policy.ClassRead), pol.Fallback(policy.ClassWrite), pol.Fallback(policy.ClassShell))
	c.note("  headless_ask %s (when nobody can answer)", pol.HeadlessAsk())
	rules := c.st.Approver.Session().Rules()
	if len(rules) == 0 {
		c.note("session: no answers yet")
		return
	}
	c.note("session:")
	for _, r := range rules {
		c.note("  %s", r)
	}
}

// cost shows the chat's tokens and cost so far; when it used more than
// one model (/model), what each spent, at its own price.
func (c *chat) cost() {
	b := c.st.Budget
	u := b.Spent()
	c.note("tokens: %s in, %s out (%d requests); cost %s", sink.FormatTokens(inTokens(u)),
		sink.FormatTokens(int64(u.OutputTokens)), b.Requests(), b.CostSummary())
	models := b.ByModel()
	if len(models) < 2 {
		return
	}
	c.note("each run priced at the model it used:")
	for _, m := range models {
		cost := "cost unknown (no price)"
		if m.CostKnown {
			cost = "cost " + agent.FormatUSD(m.CostUSD)
		}
		c.note("  %s: %s in, %s out (%d requests); %s", m.Model, sink.FormatTokens(inTokens(m.Usage)),
			sink.FormatTokens(int64(m.Usage.OutputTokens)), m.Requests, cost)
	}
	if n, su := b.SubTotals(); n > 0 {
		c.note("  sub-queries: %s in, %s out (%d, each at its own model's price)", sink.FormatTokens(inTokens(su)),
			sink.FormatTokens(int64(su.OutputTokens)), n)
	}
}

// inTokens counts the input tokens of u, cached ones included.
func inTokens(u llm.Usage) int64 {
	return int64(u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens)
}

// session names the session log.
func (c *chat) session() {
	p := c.st.Session.Path()
	if p == "" {
		c.note("no session log (--no-session, or it could not be written)")
		return
	}
	c.note("session %s: %s", session.IDOf(p), p)
}

// diff shows the changes this chat's tools made, call by call.
func (c *chat) diff() {
	if len(c.edits.list) == 0 {
		c.note("this chat changed no files")
		return
	}
	var files []string
	for _, e := range c.edits.list {
		for _, f := range e.files {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
		if e.diff != "" {
			fmt.Fprintln(c.stderr, agent.Shown(strings.TrimRight(e.diff, "\n")))
		}
	}
	c.note("changed: %s", strings.Join(files, ", "))
}

// compactNow compacts the conversation at once, as the loop does when it
// nears the window: the summary request, the compaction event and the
// session line.
func (c *chat) compactNow(ctx context.Context) {
	out, err := c.st.Agent.CompactNow(ctx)
	switch {
	case err != nil:
		c.sinks.Emit(agent.Event{Kind: agent.EventError, Err: err})
	case out == agent.CompactOff:
		c.note("compaction is off (--no-compact)")
	case out == agent.CompactTooShort:
		c.note("nothing to compact yet")
	case out == agent.CompactNothing:
		c.note("nothing to compact")
	}
}
