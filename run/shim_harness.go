package run

import (
	"io"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// Transitional shims (issue 31, step 3c): the composition root of a run
// moved to [harness]; these names keep the files of run that have not
// moved yet compiling unchanged. Phase 4 of the split deletes this file.

// policySource is [harness.PolicySource].
type policySource = harness.PolicySource

// loadPolicy is [harness.LoadPolicy].
func loadPolicy(src policySource, notes io.Writer) (*policy.Policy, error) {
	return harness.LoadPolicy(src, notes)
}

// linkCount is [harness.LinkCount].
func linkCount(abs string) int { return harness.LinkCount(abs) }

// shellSettings is [harness.ShellSettings].
func shellSettings(lc *config.Loaded) config.Shell { return harness.ShellSettings(lc) }

// achieveSandbox is [harness.AchieveSandbox].
func achieveSandbox(sh config.Shell, env environment) sandbox.State {
	return harness.AchieveSandbox(sh, env.Env)
}

// startSandbox is [harness.StartSandbox].
func startSandbox(cfg execConfig, env environment, notice func(string)) (sandbox.State, error) {
	return harness.StartSandbox(cfg.settings(), env.Env, notice)
}

// sandboxConfig is [harness.SandboxConfig].
func sandboxConfig(st sandbox.State, sh config.Shell, env environment) toolkit.BashSandbox {
	return harness.SandboxConfig(st, sh, env.Env)
}

// sandboxCacheDir is [harness.SandboxCacheDir].
func sandboxCacheDir(env environment) string { return harness.SandboxCacheDir(env.Env) }

// runTempDir is [harness.RunTempDir].
func runTempDir() (string, error) { return harness.RunTempDir() }

// initSettings is [harness.InitSettings].
type initSettings = harness.InitSettings

// initEvent is [harness.InitEvent] for the running binary's build.
func initEvent(is initSettings, root string, tools []string, pol *policy.Policy, box sandbox.State) events.Init {
	return harness.InitEvent(is, sinkBuild(), root, tools, pol, box)
}

// compactSettings is [harness.CompactSettings].
func compactSettings(lc *config.Loaded, model string, noCompact bool, emit func(Event)) compactConfig {
	return harness.CompactSettings(lc, model, noCompact, emit)
}
