package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/mcp"
	"github.com/urfave/cli/v2"
)

// mcpFlags are the flags that choose the MCP servers, shared by `exec`
// and `mcp list`.
func mcpFlags(category string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "mcp-config", Usage: "also start the MCP servers of `FILE`, JSON {\"mcpServers\": {...}} as other agents write it (a file inside the workspace only with --trust-workspace)", EnvVars: envs("mcp-config"), Category: category, TakesFile: true},
		&cli.BoolFlag{Name: "no-mcp", Usage: "start no MCP server", EnvVars: envs("no-mcp"), Category: category},
	}
}

func mcpChoiceFromCLI(c *cli.Context) (mcpChoice, error) {
	ch := mcpChoice{ConfigFile: c.String("mcp-config"), Off: c.Bool("no-mcp")}
	if ch.ConfigFile != "" {
		abs, err := filepath.Abs(ch.ConfigFile)
		if err != nil {
			return ch, usagef("--mcp-config: %v", err)
		}
		ch.ConfigFile = abs
	}
	return ch, nil
}

// mcpOptions are the servers' process settings: the bash tool's scrubbed
// environment without the provider keys, the workspace as working
// directory, the run's reaper, and the run's OS sandbox, which confines a
// stdio server as it does shell commands (through the one-shot helper:
// [toolkit.Sandbox.Wrap]).
func mcpOptions(ce childEnv, root string, rt runTools) mcp.Options {
	opts := mcp.Options{
		Environ: ce.Environ, EnvAllow: ce.EnvAllow, DropEnv: ce.DropEnv,
		PathAdd: ce.PathAdd, Dir: root, Reaper: rt.reaper,
	}
	if rt.box != nil {
		opts.Prepare = func(cmd *exec.Cmd) error {
			rt.box.Wrap(cmd)
			return nil
		}
	}
	return opts
}

// probeTools is what `rubichan mcp list` and `rubichan doctor` start the
// MCP servers with: the sandbox and the reaper a run's would have, so that
// a server's command (a trusted .mcp.json's among them) runs as confined
// as in a run, and what it leaves behind is ended. close stops both and
// removes the private temporary directory.
func probeTools(cfg execConfig, env environment, root string, notice func(string)) (rt runTools, close func(), err error) {
	box, err := startSandbox(cfg, env, notice)
	if err != nil {
		return runTools{}, nil, err
	}
	tmp, err := runTempDir()
	if err != nil {
		return runTools{}, nil, fmt.Errorf("temporary directory: %w", err)
	}
	rt = runTools{sandbox: box, tempDir: tmp, reaper: toolkit.NewReaper()}
	rt.box = toolkit.NewSandbox(sandboxConfig(box, shellSettings(cfg.Settings), env), root, tmp, rt.reaper)
	return rt, func() {
		rt.box.Close()
		rt.reaper.Sweep()
		os.RemoveAll(tmp)
	}, nil
}

// mcpStarter returns what starts the run's MCP servers once its reaper
// exists: the servers of the configuration and flags, started with
// [startMCP].
func (cfg execConfig) mcpStarter(ctx context.Context, env environment, root string, notice func(string)) func(runTools) (*mcp.Manager, error) {
	return func(rt runTools) (*mcp.Manager, error) {
		servers, err := mcpServers(cfg.MCP, cfg.Settings, root, cfg.TrustWorkspace, notice)
		if err != nil {
			return nil, err
		}
		return startMCP(ctx, servers, mcpOptions(cfg.childEnv(env), root, rt), notice)
	}
}
