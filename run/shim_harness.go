package run

import (
	"io"
	"time"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/mcp"
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

// achieveSandbox is [harness.AchieveSandbox].
func achieveSandbox(sh config.Shell, env environment) sandbox.State {
	return harness.AchieveSandbox(sh, env.Env)
}

// loadConfig is [harness.LoadConfig].
func loadConfig(opts config.Options) (*config.Loaded, error) { return harness.LoadConfig(opts) }

// resolveProvider is [harness.ResolveProvider].
func resolveProvider(lc *config.Loaded, lookupEnv func(string) (string, bool)) (config.ResolvedProvider, error) {
	return harness.ResolveProvider(lc, lookupEnv)
}

// newBudget is [harness.NewBudget].
func newBudget(limits config.Limits, model string, prices map[string]config.Price) (*Budget, error) {
	return harness.NewBudget(limits, model, prices)
}

// trafficSettings is [harness.TrafficSettings].
type trafficSettings = harness.TrafficSettings

// resolveRunProvider is [harness.ResolveRunProvider].
func resolveRunProvider(ts trafficSettings, lc *config.Loaded, lookupEnv func(string) (string, bool)) (config.ResolvedProvider, error) {
	return harness.ResolveRunProvider(ts, lc, lookupEnv)
}

// sessionPlan is [harness.SessionPlan].
type sessionPlan = harness.SessionPlan

// planSession is [harness.PlanSession] for the session flags f.
func planSession(f sessionFlags, dir string, secrets []string, root string, stderr io.Writer) (*sessionPlan, error) {
	return harness.PlanSession(f.settings(), dir, secrets, root, stderr)
}

// openPlanned is [harness.SessionPlan.Open] with this binary's build.
func openPlanned(p *sessionPlan, f sessionFlags, opt sessionOptions, h sessionHeader) *sessionLog {
	opt.Build = sinkBuild()
	return p.Open(f.settings(), opt, h)
}

// mcpChoice is [harness.MCPChoice].
type mcpChoice = harness.MCPChoice

// mcpServers is [harness.MCPServers].
func mcpServers(ch mcpChoice, settings *config.Loaded, root string, trusted bool, notice func(string)) ([]mcp.ServerConfig, error) {
	return harness.MCPServers(ch, settings, root, trusted, notice)
}

// patchLine is [harness.PatchLine].
func patchLine(pi *PatchInfo) string { return harness.PatchLine(pi) }

// answer is a person's answer to one call an earlier run deferred.
type answer = agent.Approval

// pendingFacts is [harness.PendingFacts].
func pendingFacts(v verdict) []agent.PendingFact { return harness.PendingFacts(v) }

type ()

// allowAll is [harness.AllowAll].
func allowAll(lc *config.Loaded) bool { return harness.AllowAll(lc) }

// approver is [harness.Approver].
type approver = harness.Approver

// newApprover is [harness.NewApprover] for a headless run.
func newApprover(pol *policy.Policy, ws *toolkit.Workspace, spillDir string) *approver {
	return harness.NewApprover(pol, ws, spillDir, false)
}

// linksIn is [harness.LinksIn].
func linksIn(root, p string) int { return harness.LinksIn(root, p) }

// listFiles is [harness.ListFiles].
func listFiles(root string, resolve func(string) (string, error)) func(string) ([]string, bool) {
	return harness.ListFiles(root, resolve)
}

// shellEnv is [harness.ShellEnv].
func shellEnv(root, dir string, vars map[string]string) map[string]string {
	return harness.ShellEnv(root, dir, vars)
}

type (
	runTools     = harness.Tools        // [harness.Tools]
	bashSettings = harness.BashSettings // [harness.BashSettings]
)

// buildTools is [harness.BuildTools].
func buildTools(ws *toolkit.Workspace, ap *approver, bs bashSettings, env environment, rt runTools) []toolkit.Tool {
	return harness.BuildTools(ws, ap, bs, env.Env, rt)
}

// runEnd is [harness.RunEnd].
type runEnd = harness.RunEnd

// finishRun is [harness.Finish].
func finishRun(runErr error, l *loop, text *textSink, start time.Time, emit func(Event), end runEnd) error {
	return harness.Finish(runErr, l, text, start, emit, end)
}
