package run

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rubichan/rubichan/policy"
)

// resolvePolicyPending stands in for policyload.go (policy issue) until
// that branch is merged; it is deleted then.
func resolvePolicyPending(cfg execConfig, notice func(string)) (*policy.Policy, error) {
	var p *policy.Policy
	var err error
	wsFile := filepath.Join(cfg.Dir, ".rubichan", "policy.toml")
	switch _, statErr := os.Stat(wsFile); {
	case cfg.PolicyFile != "":
		p, err = policy.Load(cfg.PolicyFile)
	case statErr == nil && cfg.TrustWorkspace:
		p, err = policy.Load(wsFile)
	case statErr == nil:
		notice("ignoring .rubichan/policy.toml in the workspace (a checkout may be untrusted); pass --trust-workspace to use it")
		p = policy.Default()
	case errors.Is(statErr, fs.ErrNotExist):
		p = policy.Default()
	default:
		return nil, statErr
	}
	if err != nil {
		return nil, usageError{err}
	}
	p, err = p.WithRules(cfg.Allow, cfg.Deny)
	if err != nil {
		return nil, usageError{err}
	}
	return p, nil
}
