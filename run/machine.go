package run

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// The --output formats.
const (
	outputText       = "text"
	outputFinal      = "final"
	outputJSON       = "json"
	outputStreamJSON = "stream-json"
)

// initEvent describes the run that is about to start.
func initEvent(cfg execConfig, root string, tools []string, pol *policy.Policy, box sandbox.State) events.Init {
	bi := readBuildInfo()
	ev := events.Init{
		Version: bi.Version, Commit: bi.Commit, Modified: bi.Modified, Go: bi.Go, Provider: cfg.Provider, Model: cfg.Model, Workspace: root, Tools: tools,
		Policy:  events.Policy{Source: pol.Name(), SHA256: policyDigest(pol, cfg.Allow, cfg.Deny)},
		Limits:  events.Limits{MaxTurns: cfg.MaxTurns, TimeoutMS: cfg.Timeout.Milliseconds(), MaxToolCalls: cfg.MaxToolCalls},
		Sandbox: events.Sandbox{Mode: string(box.Mode), LandlockABI: box.ABI, Filesystem: box.Filesystem, Network: box.Network},
	}
	if f := pol.File(); f != "" {
		ev.Policy.Source = f
	}
	ev.AllowAll = pol.AllowAll()
	if cfg.Settings != nil {
		ev.Limits.MaxTokensTotal, ev.Limits.MaxCostUSD = cfg.Settings.Limits.MaxTokensTotal, cfg.Settings.Limits.MaxCost
	}
	return ev
}

// policyDigest is the hex SHA-256 of the policy's text — its file, or
// the built-in one — followed by a line "allow = RULE" or "deny = RULE"
// for each command-line rule.
func policyDigest(pol *policy.Policy, allow, deny []string) string {
	text := policy.DefaultText()
	if f := pol.File(); f != "" {
		if data, err := os.ReadFile(f); err == nil {
			text = data
		}
	}
	h := sha256.New()
	h.Write(text)
	for _, r := range allow {
		io.WriteString(h, "\nallow = "+r)
	}
	for _, r := range deny {
		io.WriteString(h, "\ndeny = "+r)
	}
	return hex.EncodeToString(h.Sum(nil))
}
