package run

// subquerySettings returns the run's sub-query settings.
func (cfg execConfig) subquerySettings() subquerySettings {
	q := cfg.Settings.Query
	return subquerySettings{
		Options: subqueryOptions{Model: cfg.Resolved.SubModel, Prices: cfg.Settings.Prices, MaxCost: cfg.Settings.Limits.MaxCost,
			Concurrency: max(q.Concurrency, 1), MaxQueries: q.MaxQueries},
		Provider: cfg.Resolved, Limits: streamLimits(cfg.Settings),
	}
}

// keyVars are the provider key variables no command started by the run
// sees.
func (cfg execConfig) keyVars() []string {
	return runKeyVars(cfg.KeyVar, cfg.Settings)
}

// childDropEnv is what the run's other commands — hooks, --verify, MCP
// servers — do not see: the key variables and the sub-query socket and
// token, which only the bash tool's commands get (through
// [withQuerySocket]).
func (cfg execConfig) childDropEnv() []string {
	return childDropEnv(cfg.keyVars())
}
