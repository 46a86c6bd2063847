package run

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/toolkit/sandbox"
	"github.com/urfave/cli/v2"
)

// The --output formats.
const (
	outputText       = "text"
	outputFinal      = "final"
	outputJSON       = "json"
	outputStreamJSON = "stream-json"
)

// machineKey is the cli.App Metadata key of the run's [jsonSink].
const machineKey = "rubichan.machine"

// machineOutput returns the sink of an `exec` run whose --output (or
// RUBICHAN_OUTPUT) is json or stream-json, else nil. It reads the raw
// arguments, before they are parsed: a usage error in them must still
// end in a result object. With --help there is no run and no sink.
func machineOutput(args []string, lookupEnv func(string) (string, bool), stdout io.Writer, now func() time.Time) *jsonSink {
	if len(args) < 2 || args[1] != "exec" {
		return nil
	}
	mode, _ := lookupEnv(envName("output"))
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
		case name == "help" || name == "h":
			return nil
		case name == "output" && hasValue:
			mode = value
		case name == "output" && i+1 < len(rest):
			i++
			mode = rest[i]
		}
	}
	if mode != outputJSON && mode != outputStreamJSON {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	return newJSONSink(stdout, mode == outputStreamJSON, newSessionID(now()), now)
}

// machineSink returns the sink [runMain] put in the app's metadata, or
// nil (text output, or an app run without runMain).
func machineSink(c *cli.Context) *jsonSink {
	js, _ := c.App.Metadata[machineKey].(*jsonSink)
	return js
}

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
