package run

import (
	"github.com/urfave/cli/v2"
)

// loadSettings loads the layered configuration for an exec run in cfg.Dir
// and resolves its provider. A headless run trusts the workspace file only
// with --trust-workspace. Every problem is a usage error (exit 2).
func (cfg *execConfig) loadSettings(c *cli.Context, env environment) error {
	lc, err := loadConfig(configOptionsFromCLI(c, env, cfg.Dir, cfg.TrustWorkspace))
	if err != nil {
		return err
	}
	rp, err := resolveRunProvider(cfg.trafficSettings(), lc, env.LookupEnv)
	if err != nil {
		return err
	}
	// A cost cap on a model without a price refuses to start, before
	// stdin is read or any request made.
	if _, err := newBudget(lc.Limits, rp.Model, lc.Prices); err != nil {
		if o := lc.Origin("limits", "max_cost"); o.Source != "flag --max-cost" {
			return usagef("%w (max_cost set by %s)", err, o)
		}
		return err
	}
	cfg.Settings, cfg.Resolved = lc, rp
	cfg.Provider, cfg.Model, cfg.BaseURL = rp.Name, rp.Model, rp.BaseURL
	cfg.APIKey, cfg.KeyVar = rp.APIKey(), rp.KeyEnv
	cfg.MaxTurns, cfg.Timeout, cfg.MaxToolCalls = lc.Limits.MaxTurns, lc.Limits.Timeout, lc.Limits.MaxToolCalls
	cfg.CompactAt = lc.CompactAt
	cfg.Parallel = lc.Limits.ParallelToolCalls
	return nil
}

// GoString is String, so that %#v of an execConfig cannot print its key.
func (cfg execConfig) GoString() string { return cfg.String() }
