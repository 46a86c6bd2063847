package run

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// secrets are the values a run hides: its key, the value of every provider
// key variable set in the environment, credential header values (and
// the token alone of a "Bearer TOKEN" value), and the credentials of its
// MCP servers ([mcp.Secrets]: header values, credential env values).
func (cfg execConfig) secrets(env environment) []string {
	secrets := []string{cfg.APIKey}
	for _, v := range providerKeyVars(cfg.Settings) {
		if val, ok := env.lookupEnv(v); ok {
			secrets = append(secrets, val)
		}
	}
	for name, val := range cfg.Resolved.Headers {
		if config.RedactHeader(name, val) == config.Redacted {
			secrets = append(secrets, val)
			if f := strings.Fields(val); len(f) > 1 {
				secrets = append(secrets, f[len(f)-1])
			}
		}
	}
	return append(secrets, cfg.mcpSecrets(env)...)
}

// mcpSecrets are the credentials of the MCP servers the run would start
// (the configuration's, the trusted workspace's, --mcp-config's), with
// $NAME expanded as the servers get them. Problems with the server files
// are left to the start of the servers, which reports them.
func (cfg execConfig) mcpSecrets(env environment) []string {
	if cfg.MCP.Off {
		return nil
	}
	root, err := filepath.Abs(cmp.Or(cfg.Dir, "."))
	if err != nil {
		return nil
	}
	servers, _ := mcpServers(cfg.MCP, cfg.Settings, root, cfg.TrustWorkspace, func(string) {})
	if len(servers) == 0 {
		return nil
	}
	var environ []string
	if env.environ != nil {
		environ = env.environ()
	}
	return mcp.Secrets(servers, mcp.Options{Environ: environ, DropEnv: cfg.childDropEnv()})
}
