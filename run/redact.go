package run

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/toolkit/mcp"
)

// secretMinLen is the shortest value redacted as a secret: shorter ones
// ("x", "ollama") are placeholders, and replacing them everywhere would
// wreck the output without protecting anything.
const secretMinLen = 8

// redactedMark replaces a secret wherever rubichan shows or records text.
const redactedMark = "[REDACTED]"

// redactor replaces a run's secrets — API keys, credential header values —
// in text before it is shown on stderr or written to the session log. The
// model never gets a key, but a workspace file or a tool's output may hold
// one. A nil redactor changes nothing. It is not modified after creation,
// so it is safe for concurrent use.
type redactor struct {
	secrets []string // longest first, none shorter than secretMinLen
}

// newRedactor returns a redactor for secrets, leaving out duplicates and
// values too short to be secrets.
func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	for _, v := range secrets {
		if len(v) >= secretMinLen && !slices.Contains(r.secrets, v) {
			r.secrets = append(r.secrets, v)
		}
	}
	// A longer secret goes first, in case it contains a shorter one.
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// redact returns s with every secret replaced by [redactedMark].
func (r *redactor) redact(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redactedMark)
	}
	return s
}

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
