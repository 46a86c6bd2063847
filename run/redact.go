package run

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// mcpPlace is where a run finds its MCP servers: the flags' choice, the
// workspace directory (its .mcp.json) and whether that is trusted.
type mcpPlace struct {
	Choice  mcpChoice // --mcp-config, --no-mcp
	Dir     string    // the workspace; "" for the current directory
	Trusted bool      // --trust-workspace
}

// mcpPlace returns where the run finds its MCP servers.
func (cfg execConfig) mcpPlace() mcpPlace {
	return mcpPlace{Choice: cfg.MCP, Dir: cfg.Dir, Trusted: cfg.TrustWorkspace}
}

// secrets returns the run's secrets ([secrets]).
func (cfg execConfig) secrets(env environment) []string {
	return secrets(cfg.Resolved, cfg.Settings, cfg.mcpPlace(), env)
}

// secrets are the values a run hides: its provider's key, the value of
// every provider key variable set in the environment, credential header
// values (and the token alone of a "Bearer TOKEN" value), and the
// credentials of its MCP servers ([mcp.Secrets]: header values,
// credential env values).
func secrets(rp config.ResolvedProvider, lc *config.Loaded, mp mcpPlace, env environment) []string {
	secrets := []string{rp.APIKey()}
	for _, v := range providerKeyVars(lc) {
		if val, ok := env.LookupEnv(v); ok {
			secrets = append(secrets, val)
		}
	}
	for name, val := range rp.Headers {
		if config.RedactHeader(name, val) == config.Redacted {
			secrets = append(secrets, val)
			if f := strings.Fields(val); len(f) > 1 {
				secrets = append(secrets, f[len(f)-1])
			}
		}
	}
	return append(secrets, mcpSecrets(mp, lc, runKeyVars(rp.KeyEnv, lc), env)...)
}

// mcpSecrets are the credentials of the MCP servers the run would start
// (the configuration's, the trusted workspace's, --mcp-config's), with
// $NAME expanded as the servers get them, without keyVars. Problems with
// the server files are left to the start of the servers, which reports
// them.
func mcpSecrets(mp mcpPlace, lc *config.Loaded, keyVars []string, env environment) []string {
	if mp.Choice.Off {
		return nil
	}
	root, err := filepath.Abs(cmp.Or(mp.Dir, "."))
	if err != nil {
		return nil
	}
	servers, _ := mcpServers(mp.Choice, lc, root, mp.Trusted, func(string) {})
	if len(servers) == 0 {
		return nil
	}
	var environ []string
	if env.Environ != nil {
		environ = env.Environ()
	}
	return mcp.Secrets(servers, mcp.Options{Environ: environ, DropEnv: childDropEnv(keyVars)})
}
