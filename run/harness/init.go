package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// InitSettings is what the init event tells of a run's settings.
type InitSettings struct {
	Provider, Model string
	Allow, Deny     []string      // the command-line policy rules
	Limits          config.Limits // the resolved limits
	SchemaDigest    string        // --json-schema's digest; "" without one
}

// InitEvent describes the run that is about to start, made by build.
func InitEvent(is InitSettings, bi sink.Build, root string, tools []string, pol *policy.Policy, box sandbox.State) events.Init {
	lim := is.Limits
	ev := events.Init{
		Version: bi.Version, Commit: bi.Commit, Modified: bi.Modified, Go: bi.Go, Provider: is.Provider, Model: is.Model, Workspace: root, Tools: tools,
		Policy: events.Policy{Source: pol.Name(), SHA256: policyDigest(pol, is.Allow, is.Deny)},
		Limits: events.Limits{MaxTurns: lim.MaxTurns, TimeoutMS: lim.Timeout.Milliseconds(), MaxToolCalls: lim.MaxToolCalls,
			MaxTokensTotal: lim.MaxTokensTotal, MaxCostUSD: lim.MaxCost},
		Sandbox: events.Sandbox{Mode: string(box.Mode), LandlockABI: box.ABI, Filesystem: box.Filesystem, Network: box.Network},
	}
	if f := pol.File(); f != "" {
		ev.Policy.Source = f
	}
	ev.AllowAll = pol.AllowAll()
	if is.SchemaDigest != "" {
		ev.JSONSchema = &events.JSONSchema{SHA256: is.SchemaDigest}
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
