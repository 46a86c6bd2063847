package run

// mcpPlace returns where the run finds its MCP servers.
func (cfg execConfig) mcpPlace() mcpPlace {
	return mcpPlace{Choice: cfg.MCP, Dir: cfg.Dir, Trusted: cfg.TrustWorkspace}
}

// secrets returns the run's secrets ([secrets]).
func (cfg execConfig) secrets(env environment) []string {
	return secrets(cfg.Resolved, cfg.Settings, cfg.mcpPlace(), env)
}
