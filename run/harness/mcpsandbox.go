package harness

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/toolkit/mcp"
)

// MCPWritableRoots are a server's writable_roots with "~" and "~/…" taken
// in home (dropped when home is not absolute); others stay as written
// (relative ones are in the workspace).
func MCPWritableRoots(roots []string, home string) []string {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		if r == "~" || strings.HasPrefix(r, "~/") {
			if !filepath.IsAbs(home) {
				continue
			}
			r = filepath.Join(home, strings.TrimPrefix(r[1:], "/"))
		}
		out = append(out, r)
	}
	return out
}

// MCPSandboxHint is added to the reason of a stdio server that could not
// start under the sandbox: the sandbox is the likely cause, and what
// lifts it for this server.
func MCPSandboxHint(cfg mcp.ServerConfig) string {
	var need []string
	if !cfg.Network {
		need = append(need, "network = true")
	}
	need = append(need, `writable_roots = ["~/.npm", …]`)
	return fmt.Sprintf("the sandbox is the likely cause: a stdio server may write only in the workspace and its $TMPDIR, "+
		"and has no network%s; if %s needs more (npx needs both), give it %s in [mcp.servers.%s] or its .mcp.json entry "+
		"(a configuration you trust), or run with --sandbox off", networkNote(cfg), cfg.Name, strings.Join(need, " and "), cfg.Name)
}

func networkNote(cfg mcp.ServerConfig) string {
	if cfg.Network {
		return " unless given (it has network = true)"
	}
	return ""
}
