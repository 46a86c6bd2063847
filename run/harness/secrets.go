package harness

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/subquery"
	"github.com/rubichan/rubichan/run/telemetry"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// MCPPlace is where a run finds its MCP servers: the flags' choice, the
// workspace directory (its .mcp.json) and whether that is trusted.
type MCPPlace struct {
	Choice  MCPChoice // --mcp-config, --no-mcp
	Dir     string    // the workspace; "" for the current directory
	Trusted bool      // --trust-workspace
}

// Secrets are the values a run hides: its provider's key, the value of
// every provider key variable set in the Env, credential header
// values (and the token alone of a "Bearer TOKEN" value), and the
// credentials of its MCP servers ([mcp.Secrets]: header values,
// credential env values).
func Secrets(rp config.ResolvedProvider, lc *config.Loaded, mp MCPPlace, env Env) []string {
	secrets := []string{rp.APIKey()}
	for _, v := range ProviderKeyVars(lc) {
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
	// The collector's credentials (OTEL_EXPORTER_OTLP_HEADERS).
	secrets = append(secrets, telemetry.HeaderSecrets(env.Getenv)...)
	return append(secrets, mcpSecrets(mp, lc, RunKeyVars(rp.KeyEnv, lc), env)...)
}

// mcpSecrets are the credentials of the MCP servers the run would start
// (the configuration's, the trusted workspace's, --mcp-config's), with
// $NAME expanded as the servers get them, without keyVars. Problems with
// the server files are left to the start of the servers, which reports
// them.
func mcpSecrets(mp MCPPlace, lc *config.Loaded, keyVars []string, env Env) []string {
	if mp.Choice.Off {
		return nil
	}
	root, err := filepath.Abs(cmp.Or(mp.Dir, "."))
	if err != nil {
		return nil
	}
	servers, _ := MCPServers(mp.Choice, lc, root, mp.Trusted, func(string) {})
	if len(servers) == 0 {
		return nil
	}
	var environ []string
	if env.Environ != nil {
		environ = env.Environ()
	}
	return mcp.Secrets(servers, mcp.Options{Environ: environ, DropEnv: ChildDropEnv(keyVars)})
}

// RunKeyVars are the key variables of a run whose provider's key is in
// keyVar: that one and every provider's ([ProviderKeyVars]), and the
// variables of the collector's credentials ([telemetry.HeaderVars]),
// which no command the run starts sees either.
func RunKeyVars(keyVar string, lc *config.Loaded) []string {
	return append(append([]string{keyVar}, ProviderKeyVars(lc)...), telemetry.HeaderVars()...)
}

// ChildDropEnv is what the run's other commands — hooks, --verify, MCP
// servers — do not see, given its key variables: the key variables and
// the sub-query socket and token, which only the bash tool's commands get.
func ChildDropEnv(keyVars []string) []string {
	return append(slices.Clip(keyVars), subquery.SocketEnv, subquery.TokenEnv)
}
