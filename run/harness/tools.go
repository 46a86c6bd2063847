package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/subquery"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/mcp"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// Tools is what a run decides for its tools before the loop: the
// sandbox state, the private temporary directory, the reaper and the
// sandbox the commands share.
type Tools struct {
	Sandbox sandbox.State
	TempDir string
	Reaper  *toolkit.Reaper  // shared with the bash tool; the run sweeps it at its end
	Box     *toolkit.Sandbox // nil: commands run unconfined; the run closes it at its end
	Queries *SubqueryHost    // the sub-query socket; nil without one
	MCP     *mcp.Manager     // the MCP servers; nil: none
}

// ChildEnv is the environment of the commands a run starts besides the
// bash tool's — hooks, --verify, MCP servers: the process environment,
// scrubbed as the bash tool's is, less the provider keys and the
// sub-query socket and token.
type ChildEnv struct {
	Environ  []string // the process environment; nil: none
	EnvAllow []string // --pass-env: variables let through the scrubbing
	DropEnv  []string // variables removed whatever the allow list says
	PathAdd  []string // directories added to PATH ([bash] path_add)
	// CallEnv adds a command's variables from its context: the
	// TRACEPARENT of the span it runs under; nil: none.
	CallEnv func(ctx context.Context) []string
	// Headers adds the headers of a request to an HTTP MCP server from
	// its context: the traceparent of its span, when the user opts in
	// ([telemetry] propagate_to_providers); nil: none.
	Headers func(ctx context.Context, set func(key, value string))
}

// OpenTools makes what the run's commands — the bash tool's, the
// hooks', --verify's and the MCP servers' — share: the reaper that ends
// their descendants that detached from their process group (with each
// command and, at the latest, in close, also on a signal), the private
// temporary directory (their TMPDIR), which close removes, the
// sub-query socket in it (unless --no-subqueries), the sandbox of state box
// for the workspace root, whose spawner close stops, and the MCP servers
// startMCP starts (before the first request), which close stops first.
func OpenTools(box sandbox.State, s Settings, env Env, root string, startMCP func(Tools) (*mcp.Manager, error)) (Tools, func(), error) {
	tmp, err := RunTempDir()
	if err != nil {
		return Tools{}, nil, fmt.Errorf("run: temporary directory: %w", err)
	}
	q, err := ListenSubqueries(s, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return Tools{}, nil, err
	}
	rt := Tools{Sandbox: box, TempDir: tmp, Reaper: toolkit.NewReaper(), Queries: q}
	rt.Box = toolkit.NewSandbox(SandboxConfig(box, ShellSettings(s.Config), env), root, tmp, rt.Reaper)
	closeAll := func() {
		q.Close()
		rt.MCP.Close()
		rt.Box.Close()
		rt.Reaper.Sweep()
		os.RemoveAll(tmp)
	}
	if rt.MCP, err = startMCP(rt); err != nil {
		closeAll()
		return Tools{}, nil, err
	}
	return rt, closeAll, nil
}

// ProbeTools is what `rubichan mcp list` and `rubichan doctor` start the
// MCP servers with: the sandbox and the reaper a run's would have, so that
// a server's command (a trusted .mcp.json's among them) runs as confined
// as in a run, and what it leaves behind is ended. close stops both and
// removes the private temporary directory.
func ProbeTools(s Settings, env Env, root string, notice func(string)) (rt Tools, close func(), err error) {
	box, err := StartSandbox(s, env, notice)
	if err != nil {
		return Tools{}, nil, err
	}
	tmp, err := RunTempDir()
	if err != nil {
		return Tools{}, nil, fmt.Errorf("temporary directory: %w", err)
	}
	rt = Tools{Sandbox: box, TempDir: tmp, Reaper: toolkit.NewReaper()}
	rt.Box = toolkit.NewSandbox(SandboxConfig(box, ShellSettings(s.Config), env), root, tmp, rt.Reaper)
	return rt, func() {
		rt.Box.Close()
		rt.Reaper.Sweep()
		os.RemoveAll(tmp)
	}, nil
}

// MCPOptions are the servers' process settings: the bash tool's scrubbed
// environment without the provider keys, the run's private TMPDIR, the
// workspace as working directory, the run's reaper, and the run's OS
// sandbox, which confines a stdio server as it does shell commands
// (through the one-shot helper: [toolkit.Sandbox.WrapFor]), with the
// network and the writable roots its configuration gives it; a server
// that cannot start under it gets [MCPSandboxHint].
func MCPOptions(ce ChildEnv, root string, rt Tools) mcp.Options {
	opts := mcp.Options{
		Environ: ce.Environ, EnvAllow: ce.EnvAllow, DropEnv: ce.DropEnv,
		PathAdd: ce.PathAdd, Dir: root, Reaper: rt.Reaper, TempDir: rt.TempDir, Headers: ce.Headers,
	}
	if rt.Box != nil {
		home := toolkit.LookupEnv(ce.Environ, "HOME")
		opts.Prepare = func(cmd *exec.Cmd, cfg mcp.ServerConfig) error {
			roots := MCPWritableRoots(cfg.WritableRoots, home)
			for _, r := range roots {
				if filepath.IsAbs(r) {
					// Asked for by the configuration; Landlock needs it to exist.
					_ = os.MkdirAll(r, 0o700)
				}
			}
			rt.Box.WrapFor(cmd, cfg.Network, roots)
			return nil
		}
		opts.StartHint = MCPSandboxHint
	}
	return opts
}

// MCPStarter returns what starts the run's MCP servers once its reaper
// exists: the servers of the configuration and flags, started with
// [StartMCP] in the environment ce.
func MCPStarter(ctx context.Context, s Settings, ce ChildEnv, root string, notice func(string)) func(Tools) (*mcp.Manager, error) {
	return func(rt Tools) (*mcp.Manager, error) {
		servers, err := MCPServers(s.MCP, s.Config, root, s.Policy.TrustWorkspace, notice)
		if err != nil {
			return nil, err
		}
		return StartMCP(ctx, servers, MCPOptions(ce, root, rt), notice)
	}
}

// BashSettings is what the bash tool of a run takes from its settings.
type BashSettings struct {
	PassEnv []string     // --pass-env: variables let through the scrubbing
	KeyVars []string     // the provider key variables, which no command sees
	PathAdd []string     // directories added to PATH ([bash] path_add)
	Shell   config.Shell // how the commands are confined
	// CallEnv adds a command's variables from its call's context: the
	// TRACEPARENT of its execute_tool span; nil: none.
	CallEnv func(ctx context.Context) []string
	// Headers adds the headers of a request to an HTTP MCP server from
	// its context: the traceparent of its span, when the user opts in
	// ([telemetry] propagate_to_providers); nil: none.
	Headers func(ctx context.Context, set func(key, value string))
}

// BuildTools returns the tools of a headless run: the file tools with the
// policy's read filter, bash in the workspace root with the process
// environment minus secrets and the provider keys, and the MCP servers'
// tools.
func BuildTools(ws *toolkit.Workspace, ap *Approver, bs BashSettings, env Env, rt Tools) []toolkit.Tool {
	// The sub-query token is secret-looking by name, and passed on purpose.
	allow := append(slices.Clip(bs.PassEnv), subquery.TokenEnv)
	tools := toolkit.Tools(ws, toolkit.Options{
		ReadFilter: ap.ReadFilter(),
		SkipLinked: ap.Policy().GuardsReads(),
		Bash: toolkit.BashConfig{
			Env: WithQuerySocket(env.Environ(), rt.Queries), EnvAllow: allow, DropEnv: bs.KeyVars, PathAdd: bs.PathAdd, Reaper: rt.Reaper, CallEnv: bs.CallEnv,
			TempDir: rt.TempDir, Sandbox: SandboxConfig(rt.Sandbox, bs.Shell, env), Confine: rt.Box,
		},
	})
	for _, t := range tools {
		if b, ok := t.(*toolkit.Bash); ok {
			ap.SetVars(b.Vars()) // the values the policy judges $HOME and the like with
		}
	}
	return append(tools, rt.MCP.Tools()...)
}

// OpenWorkspace loads the run's policy from src and opens the workspace,
// src.Dir, with the extra roots the policy grants; a root that cannot be
// opened is a notice.
func OpenWorkspace(src PolicySource, notes io.Writer, notice func(string)) (*toolkit.Workspace, *policy.Policy, error) {
	pol, err := LoadPolicy(src, notes)
	if err != nil {
		return nil, nil, err
	}
	ws, err := toolkit.OpenWorkspace(src.Dir)
	if err != nil {
		return nil, nil, exit.Usagef("workspace: %v", err)
	}
	for _, r := range pol.ExtraRoots() {
		if err := ws.AddRoot(r.Dir, r.Write); err != nil {
			notice(fmt.Sprintf("policy names %s, which cannot be opened: %v", r.Dir, err))
		}
	}
	return ws, pol, nil
}
