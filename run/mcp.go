package run

import (
	"path/filepath"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
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

func mcpChoiceFromCLI(c *cli.Context) (harness.MCPChoice, error) {
	ch := harness.MCPChoice{ConfigFile: c.String("mcp-config"), Off: c.Bool("no-mcp")}
	if ch.ConfigFile != "" {
		abs, err := filepath.Abs(ch.ConfigFile)
		if err != nil {
			return ch, exit.Usagef("--mcp-config: %v", err)
		}
		ch.ConfigFile = abs
	}
	return ch, nil
}
