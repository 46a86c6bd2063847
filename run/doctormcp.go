package run

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/rubichan/rubichan/toolkit/mcp"
)

// checkMCP starts the configured MCP servers (the configuration's
// [mcp.servers], a trusted workspace's .mcp.json), reports each as ready
// or not with the fix, and stops them. A required server that is not ready
// is a problem, another a warning; without servers the step does not apply.
func checkMCP(ctx context.Context, st *doctorState) []doctorCheck {
	if st.lc == nil {
		return []doctorCheck{{Status: checkSkipped, Detail: "the configuration did not load"}}
	}
	dir, err := filepath.Abs(st.c.String("cwd"))
	if err != nil {
		return []doctorCheck{{Status: checkSkipped, Detail: err.Error()}}
	}
	servers, err := mcpServers(mcpChoice{}, st.lc, dir, st.c.Bool("trust-workspace"), func(string) {})
	if err != nil {
		return []doctorCheck{{Status: checkProblem, Detail: err.Error(), Fix: "fix the workspace's .mcp.json"}}
	}
	if len(servers) == 0 {
		return nil
	}
	cfg := execConfig{Settings: st.lc}
	rt, closeTools, err := probeTools(cfg, st.env, dir, func(string) {}) // the sandbox step reports it
	if err != nil {
		return []doctorCheck{{Status: checkProblem, Detail: err.Error(), Fix: "see the sandbox step above"}}
	}
	defer closeTools()
	var out []doctorCheck
	for _, s := range mcp.Probe(ctx, servers, mcpOptions(cfg.childEnv(st.env), dir, rt)) {
		if s.State == mcp.StateReady {
			out = append(out, doctorCheck{Status: checkOK, Detail: fmt.Sprintf("%s: ready (%s), %d tools", s.Name, s.Transport, len(s.Tools))})
			continue
		}
		c := doctorCheck{Status: checkWarning, Detail: fmt.Sprintf("%s: %s: %s; a run goes on without its tools", s.Name, s.State, s.Reason),
			Fix: fmt.Sprintf("check the command or url of [mcp.servers.%s] (`rubichan mcp list` shows each server), or raise its startup_timeout", s.Name)}
		if s.Required {
			c.Status, c.Detail = checkProblem, fmt.Sprintf("%s (required): %s: %s; a run would end with exit 2", s.Name, s.State, s.Reason)
		}
		out = append(out, c)
	}
	return out
}
