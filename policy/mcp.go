package policy

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ruleMCPDefault is the rule name of an mcp call no rule names: the
// [tools] mcp entry, which is "ask" unless the file sets it.
const ruleMCPDefault = "tools.mcp"

// parseNamePattern checks one "SERVER/TOOL" doublestar pattern of an mcp
// rule: not empty, valid, and naming a server part and a tool part.
func parseNamePattern(s string) (string, error) {
	if err := checkText(s); err != nil {
		return "", err
	}
	if s == "" || !doublestar.ValidatePattern(s) {
		return "", fmt.Errorf("mcp name pattern %q is not a valid glob", s)
	}
	if !strings.Contains(s, "/") && !strings.Contains(s, "**") {
		return "", fmt.Errorf("mcp name pattern %q: want SERVER/TOOL, such as github/get_* or github/*", s)
	}
	return s, nil
}

// mcpRule reads an mcp [[rule]]: names, and no commands or paths.
func (b *builder) mcpRule(key string, rd ruleDoc, r *rule) (*rule, error) {
	if len(rd.Commands) > 0 || len(rd.Paths) > 0 {
		return nil, b.errf(key, "an mcp rule takes names (SERVER/TOOL patterns), not commands or paths")
	}
	if len(rd.Names) == 0 {
		return nil, b.errf(key+".names", "an mcp rule needs at least one SERVER/TOOL pattern")
	}
	for _, s := range rd.Names {
		n, err := parseNamePattern(s)
		if err != nil {
			return nil, b.errf(key+".names", "%v", err)
		}
		r.names = append(r.names, n)
	}
	return r, nil
}

// mcpFact judges a call of the MCP tool name ("SERVER/TOOL"). The
// strictest matching rule decides (deny wins); with none, the [tools] mcp
// entry, else "ask": a server's tools can do anything, so nothing is
// allowed unless a rule says so.
func (p *Policy) mcpFact(name string) Fact {
	f := Fact{Kind: FactMCP, Value: name, exact: true}
	if name == "" || !strings.Contains(name, "/") {
		return guard(FactMCP, name, "an mcp call must name SERVER/TOOL")
	}
	for _, r := range p.rules {
		if r.class != ClassMCP || (f.Decision != 0 && r.decision <= f.Decision) {
			continue
		}
		for _, pat := range r.names {
			if ok, _ := doublestar.Match(pat, name); ok {
				f.Decision, f.Rule = r.decision, r.id
				f.Reason = r.reason
				if f.Reason == "" {
					f.Reason = fmt.Sprintf("%s by %q", r.decision, pat)
				}
				break
			}
		}
	}
	if f.Decision != 0 {
		return f
	}
	if p.allowAll {
		f.Decision, f.Rule, f.Reason = Allow, RuleAllowAll, allowAllReason
		return f
	}
	f.Decision, f.Rule = Ask, ruleMCPDefault
	if d := p.tools[ClassMCP]; d != 0 {
		f.Decision = d
	}
	f.Reason = "no rule names the MCP tool " + name + "; the default for MCP tools is to " + f.Decision.String()
	if f.Decision == Allow {
		f.Reason = "no rule names the MCP tool " + name + "; the default for MCP tools is to allow"
	}
	return f
}
