package run

import (
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/urfave/cli/v2"
)

// loadSettings loads the layered configuration for an exec run in cfg.Dir
// and resolves its provider. A headless run trusts the workspace file only
// with --trust-workspace. Every problem is a usage error (exit 2).
func (cfg *execConfig) loadSettings(c *cli.Context, env environment) error {
	lc, err := harness.LoadConfig(configOptionsFromCLI(c, env, cfg.Dir, cfg.TrustWorkspace))
	if err != nil {
		return err
	}
	rp, err := harness.ResolveRunProvider(cfg.trafficSettings(), lc, env.LookupEnv)
	if err != nil {
		return err
	}
	// A cost cap on a model without a price refuses to start, before
	// stdin is read or any request made.
	if _, err := harness.NewBudget(lc.Limits, rp.Model, lc.Prices); err != nil {
		if o := lc.Origin("limits", "max_cost"); o.Source != "flag --max-cost" {
			return exit.Usagef("%w (max_cost set by %s)", err, o)
		}
		return err
	}
	cfg.Settings, cfg.Resolved = lc, rp
	return nil
}

// GoString is String, so that %#v of an execConfig cannot print its key.
func (cfg execConfig) GoString() string { return cfg.String() }
