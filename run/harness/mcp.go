package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// workspaceMCPFile is the MCP server file other agents read from a
// checkout; rubichan uses it only when the workspace is trusted.
const workspaceMCPFile = ".mcp.json"

// MCPServers lists the servers to start, by name: the configuration's
// [mcp.servers], then the workspace's .mcp.json when trusted (otherwise a
// note says it was ignored), then --mcp-config; a later source's server
// replaces an earlier one of the same name. Problems are usage errors.
func MCPServers(ch MCPChoice, settings *config.Loaded, root string, trusted bool, notice func(string)) ([]mcp.ServerConfig, error) {
	if ch.Off {
		return nil, nil
	}
	all := map[string]config.MCPServer{}
	if settings != nil {
		for n, s := range settings.MCP.Servers {
			all[n] = s
		}
	}
	wsFile := filepath.Join(root, workspaceMCPFile)
	wsInfo, err := os.Stat(wsFile)
	if err == nil {
		if err := mergeWorkspaceMCPFile(all, wsFile, workspaceMCPFile+" in the workspace", trusted, notice); err != nil {
			return nil, err
		}
	}
	if ch.ConfigFile != "" {
		if rel, inside := mcpFileInWorkspace(ch.ConfigFile, root); inside {
			if fi, err := os.Stat(ch.ConfigFile); err == nil && wsInfo != nil && os.SameFile(fi, wsInfo) && !trusted {
				return mcpServerList(all), nil // the note on .mcp.json said it
			}
			if err := mergeWorkspaceMCPFile(all, ch.ConfigFile, "--mcp-config "+rel+" (a file inside the workspace)", trusted, notice); err != nil {
				return nil, err
			}
		} else if err := mergeMCPFile(all, ch.ConfigFile); err != nil {
			return nil, err
		}
	}
	return mcpServerList(all), nil
}

// mcpServerList is the servers of all, sorted by name.
func mcpServerList(all map[string]config.MCPServer) []mcp.ServerConfig {
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]mcp.ServerConfig, 0, len(names))
	for _, n := range names {
		s := all[n]
		out = append(out, mcp.ServerConfig{Name: n, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers,
			Required: s.Required, StartupTimeout: s.StartupTimeout, CallTimeout: s.CallTimeout, Tools: s.Tools,
			Network: s.Network, WritableRoots: s.WritableRoots})
	}
	return out
}

// mergeWorkspaceMCPFile merges a file of MCP servers that the checkout
// controls (the workspace's .mcp.json, or an --mcp-config file inside the
// workspace) under the workspace trust rule: only when the workspace is
// trusted (--trust-workspace, or a person in line mode); otherwise it is
// ignored with a note naming what.
func mergeWorkspaceMCPFile(all map[string]config.MCPServer, file, what string, trusted bool, notice func(string)) error {
	if !trusted {
		notice(fmt.Sprintf("ignoring %s: it names programs to run as MCP servers and a checkout may be untrusted; pass --trust-workspace to use it", what))
		return nil
	}
	return mergeMCPFile(all, file)
}

// mcpFileInWorkspace reports whether file lies inside the workspace root,
// and its path relative to the root: as named, or with symlinks resolved
// (a link out of the checkout was put there by the checkout, and a link
// into it leads to what the checkout wrote). The root is judged both as
// given and resolved.
func mcpFileInWorkspace(file, root string) (string, bool) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	names := []string{filepath.Clean(file)}
	if r, err := filepath.EvalSymlinks(file); err == nil {
		names = append(names, r)
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(file)); err == nil {
		names = append(names, filepath.Join(d, filepath.Base(file)))
	}
	for _, n := range names {
		for _, r := range []string{filepath.Clean(root), realRoot} {
			if rel, ok := within(r, n); ok {
				return rel, true
			}
		}
	}
	return "", false
}

func mergeMCPFile(all map[string]config.MCPServer, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return exit.Usagef("MCP servers: %v", err)
	}
	servers, err := config.ParseMCPJSON(file, data)
	if err != nil {
		return exit.UsageError{Err: err}
	}
	for n, s := range servers {
		all[n] = s
	}
	return nil
}

// errMCPRequired is the cause of a run stopped by a required server.
var errMCPRequired = errors.New("a required MCP server is not ready")

// StartMCP starts the run's MCP servers before the first request. A
// server that is not ready is a notice; a required one ends the run
// (exit 2). The caller closes the manager (nil when no server is
// configured) when the run ends.
func StartMCP(ctx context.Context, servers []mcp.ServerConfig, opts mcp.Options, notice func(string)) (*mcp.Manager, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	m := mcp.Start(ctx, servers, opts)
	if ctx.Err() != nil {
		m.Close()
		return nil, context.Cause(ctx)
	}
	var required []string
	for _, st := range m.Status() {
		for _, n := range st.Notes {
			notice("MCP server " + st.Name + ": " + n)
		}
		if st.State == mcp.StateReady {
			continue
		}
		if st.Required {
			required = append(required, st.Name)
			continue
		}
		notice(fmt.Sprintf("MCP server %s %s: %s; the run goes on without its tools", st.Name, st.State, st.Reason))
	}
	if len(required) > 0 {
		var why []string
		for _, st := range m.NotReady() {
			if st.Required {
				why = append(why, fmt.Sprintf("%s %s: %s", st.Name, st.State, st.Reason))
			}
		}
		m.Close()
		return nil, exit.UsageError{Err: fmt.Errorf("%w: %s", errMCPRequired, strings.Join(why, "; "))}
	}
	return m, nil
}

// WithMCP adds the MCP servers to the init event.
func WithMCP(ev events.Init, m *mcp.Manager, specs []llm.ToolSpec) events.Init {
	ev.MCP = mcpInit(m, specs)
	return ev
}

// mcpInit is the init event's account of the MCP servers; nil without any.
func mcpInit(m *mcp.Manager, specs []llm.ToolSpec) *events.MCP {
	if m == nil {
		return nil
	}
	out := &events.MCP{Servers: []events.MCPServer{}}
	for _, st := range m.Status() {
		out.Servers = append(out.Servers, events.MCPServer{Name: st.Name, Transport: st.Transport, Status: string(st.State),
			Reason: st.Reason, Required: st.Required, Tools: len(st.Tools)})
	}
	for _, s := range specs {
		if strings.HasPrefix(s.Name, "mcp__") {
			data, _ := json.Marshal(s)
			out.SpecBytes += len(data)
		}
	}
	return out
}

// within returns target relative to dir when it lies inside dir.
func within(dir, target string) (string, bool) {
	rel, err := filepath.Rel(dir, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// ProbeMCP starts servers as a run in dir would — inside the sandbox and
// with the reaper of [ProbeTools], in the run's child environment — asks
// each for its tools, and stops them at once. It is what `rubichan mcp
// list` and the doctor's MCP check run.
func ProbeMCP(ctx context.Context, s Settings, env Env, servers []mcp.ServerConfig, dir string, notice func(string)) ([]mcp.Status, error) {
	rt, closeTools, err := ProbeTools(s, env, dir, notice)
	if err != nil {
		return nil, err
	}
	defer closeTools()
	return mcp.Probe(ctx, servers, MCPOptions(s.ChildEnv(env), dir, rt)), nil
}
