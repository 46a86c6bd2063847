package run

// childEnv is the environment of the commands a run starts besides the
// bash tool's — hooks, --verify, MCP servers: the process environment,
// scrubbed as the bash tool's is, less the provider keys and the
// sub-query socket and token.
type childEnv struct {
	Environ  []string // the process environment; nil: none
	EnvAllow []string // --pass-env: variables let through the scrubbing
	DropEnv  []string // variables removed whatever the allow list says
	PathAdd  []string // directories added to PATH ([bash] path_add)
}

// childEnv returns the environment of the run's other commands.
func (cfg execConfig) childEnv(env environment) childEnv {
	var environ []string
	if env.Environ != nil {
		environ = env.Environ()
	}
	return childEnv{Environ: environ, EnvAllow: cfg.PassEnv, DropEnv: cfg.childDropEnv(), PathAdd: pathAdd(cfg)}
}
