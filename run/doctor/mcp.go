package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// checkMCP starts the configured MCP servers (the configuration's
// [mcp.servers], a trusted workspace's .mcp.json), reports each as ready
// or not with the fix, and stops them. A required server that is not ready
// is a problem, another a warning; without servers the step does not apply.
func checkMCP(ctx context.Context, st *state) []Check {
	if st.lc == nil {
		return []Check{{Status: StatusSkipped, Detail: "the configuration did not load"}}
	}
	dir, err := filepath.Abs(st.opts.Dir)
	if err != nil {
		return []Check{{Status: StatusSkipped, Detail: err.Error()}}
	}
	servers, err := harness.MCPServers(st.opts.MCP, st.lc, dir, st.opts.TrustWorkspace, func(string) {})
	if err != nil {
		return []Check{{Status: StatusProblem, Detail: err.Error(), Fix: "fix the workspace's .mcp.json"}}
	}
	if len(servers) == 0 {
		return nil
	}
	statuses, err := st.opts.ProbeMCP(ctx, servers, dir) // the sandbox step reports its notices
	if err != nil {
		return []Check{{Status: StatusProblem, Detail: err.Error(), Fix: "see the sandbox step above"}}
	}
	var out []Check
	for _, s := range statuses {
		if s.State == mcp.StateReady {
			out = append(out, Check{Status: StatusOK, Detail: fmt.Sprintf("%s: ready (%s), %d tools", s.Name, s.Transport, len(s.Tools))})
			continue
		}
		c := Check{Status: StatusWarning, Detail: fmt.Sprintf("%s: %s: %s; a run goes on without its tools", s.Name, s.State, s.Reason),
			Fix: fmt.Sprintf("check the command or url of [mcp.servers.%s] (`rubichan mcp list` shows each server), or raise its startup_timeout", s.Name)}
		if strings.Contains(s.Reason, "the sandbox is the likely cause") {
			c.Fix = fmt.Sprintf("give %s what it needs in the sandbox: network = true and writable_roots = [...] in [mcp.servers.%s] or its .mcp.json entry (npx: network = true, writable_roots = [\"~/.npm\"]), or run with --sandbox off", s.Name, s.Name)
		}
		if s.Required {
			c.Status, c.Detail = StatusProblem, fmt.Sprintf("%s (required): %s: %s; a run would end with exit 2", s.Name, s.State, s.Reason)
		}
		out = append(out, c)
	}
	return out
}
