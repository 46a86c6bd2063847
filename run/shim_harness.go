package run

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/rubichan/rubichan/llm"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/run/hooks"
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

// loadConfig is [harness.LoadConfig].
func loadConfig(opts config.Options) (*config.Loaded, error) { return harness.LoadConfig(opts) }

// resolveProvider is [harness.ResolveProvider].
func resolveProvider(lc *config.Loaded, lookupEnv func(string) (string, bool)) (config.ResolvedProvider, error) {
	return harness.ResolveProvider(lc, lookupEnv)
}

// newProviderClient is [harness.NewProviderClient].
func newProviderClient(rp config.ResolvedProvider, limits llm.StreamLimits, hc *http.Client) streamer {
	return harness.NewProviderClient(rp, limits, hc)
}

// startSettings is [harness.StartSettings].
func startSettings(lc *config.Loaded, model string, notice func(string)) (*Budget, error) {
	return harness.StartSettings(lc, model, notice)
}

// inlineMax is [harness.InlineMax].
func inlineMax(lc *config.Loaded) int64 { return harness.InlineMax(lc) }

// streamLimits is [harness.StreamLimits].
func streamLimits(lc *config.Loaded) llm.StreamLimits { return harness.StreamLimits(lc) }

// stdinMax is [harness.StdinMax].
func stdinMax(lc *config.Loaded) int64 { return harness.StdinMax(lc) }

// newBudget is [harness.NewBudget].
func newBudget(limits config.Limits, model string, prices map[string]config.Price) (*Budget, error) {
	return harness.NewBudget(limits, model, prices)
}

// trafficSettings is [harness.TrafficSettings].
type trafficSettings = harness.TrafficSettings

// traffic is [harness.Traffic].
type traffic = harness.Traffic

// resolveRunProvider is [harness.ResolveRunProvider].
func resolveRunProvider(ts trafficSettings, lc *config.Loaded, lookupEnv func(string) (string, bool)) (config.ResolvedProvider, error) {
	return harness.ResolveRunProvider(ts, lc, lookupEnv)
}

// openTraffic is [harness.OpenTraffic].
func openTraffic(ts trafficSettings, rp config.ResolvedProvider, root string, date time.Time, secrets []string) (*traffic, error) {
	return harness.OpenTraffic(ts, rp, root, date, secrets)
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

// mcpPlace is [harness.MCPPlace].
type mcpPlace = harness.MCPPlace

// mcpServers is [harness.MCPServers].
func mcpServers(ch mcpChoice, settings *config.Loaded, root string, trusted bool, notice func(string)) ([]mcp.ServerConfig, error) {
	return harness.MCPServers(ch, settings, root, trusted, notice)
}

// withMCP is [harness.WithMCP].
func withMCP(ev events.Init, m *mcp.Manager, specs []llm.ToolSpec) events.Init {
	return harness.WithMCP(ev, m, specs)
}

// secrets is [harness.Secrets].
func secrets(rp config.ResolvedProvider, lc *config.Loaded, mp mcpPlace, env environment) []string {
	return harness.Secrets(rp, lc, mp, env.Env)
}

// runKeyVars is [harness.RunKeyVars].
func runKeyVars(keyVar string, lc *config.Loaded) []string { return harness.RunKeyVars(keyVar, lc) }

// childDropEnv is [harness.ChildDropEnv].
func childDropEnv(keyVars []string) []string { return harness.ChildDropEnv(keyVars) }

// patchMode is [harness.PatchMode].
type patchMode = harness.PatchMode

// startPatchMode is [harness.StartPatchMode] with the run's child drop list.
func startPatchMode(ctx context.Context, cfg execConfig, env environment, stdout io.Writer) (*patchMode, error) {
	return harness.StartPatchMode(ctx, cfg.settings(), cfg.childDropEnv(), env.Env, stdout)
}

// patchLine is [harness.PatchLine].
func patchLine(pi *PatchInfo) string { return harness.PatchLine(pi) }

// answer is a person's answer to one call an earlier run deferred.
type answer = agent.Approval

// pendingFacts is [harness.PendingFacts].
func pendingFacts(v verdict) []agent.PendingFact { return harness.PendingFacts(v) }

// previewDiff is [harness.PreviewDiff].
func previewDiff(call llm.Block, eff toolkit.Effects) string { return harness.PreviewDiff(call, eff) }

type (
	subqueryOptions  = harness.SubqueryOptions // [harness.SubqueryOptions]
	subquerySettings = harness.SubqueryConfig  // [harness.SubqueryConfig]
	subqueries       = harness.Subqueries      // [harness.Subqueries]
)

// newSubqueries is [harness.NewSubqueries].
func newSubqueries(qs subquerySettings, ws *toolkit.Workspace, j judge, budget *Budget, tr *traffic, emit func(Event)) *subqueries {
	return harness.NewSubqueries(qs, ws, j, budget, tr, emit)
}

// allowAll is [harness.AllowAll].
func allowAll(lc *config.Loaded) bool { return harness.AllowAll(lc) }

// checkAllowAll is [harness.CheckAllowAll].
func checkAllowAll(lc *config.Loaded, st sandbox.State) error { return harness.CheckAllowAll(lc, st) }

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
	childEnv     = harness.ChildEnv     // [harness.ChildEnv]
	bashSettings = harness.BashSettings // [harness.BashSettings]
)

// openRunTools is [harness.OpenTools].
func openRunTools(box sandbox.State, cfg execConfig, env environment, root string, startMCP func(runTools) (*mcp.Manager, error)) (runTools, func(), error) {
	return harness.OpenTools(box, cfg.settings(), env.Env, root, startMCP)
}

// probeTools is [harness.ProbeTools].
func probeTools(cfg execConfig, env environment, root string, notice func(string)) (rt runTools, close func(), err error) {
	return harness.ProbeTools(cfg.settings(), env.Env, root, notice)
}

// mcpOptions is [harness.MCPOptions].
func mcpOptions(ce childEnv, root string, rt runTools) mcp.Options {
	return harness.MCPOptions(ce, root, rt)
}

// mcpStarter is [harness.MCPStarter] in the run's child environment.
func (cfg execConfig) mcpStarter(ctx context.Context, env environment, root string, notice func(string)) func(runTools) (*mcp.Manager, error) {
	return harness.MCPStarter(ctx, cfg.settings(), cfg.childEnv(env), root, notice)
}

// buildTools is [harness.BuildTools].
func buildTools(ws *toolkit.Workspace, ap *approver, bs bashSettings, env environment, rt runTools) []toolkit.Tool {
	return harness.BuildTools(ws, ap, bs, env.Env, rt)
}

// openWorkspace is [harness.OpenWorkspace].
func openWorkspace(src policySource, notes io.Writer, notice func(string)) (*toolkit.Workspace, *policy.Policy, error) {
	return harness.OpenWorkspace(src, notes, notice)
}

// verifier is [harness.Verifier].
type verifier = harness.Verifier

// newVerifier is [harness.NewVerifier].
func newVerifier(v config.Verify, ce childEnv, dir string, rt runTools, emit func(Event)) *verifier {
	return harness.NewVerifier(v, ce, dir, rt, emit)
}

// runEnd is [harness.RunEnd].
type runEnd = harness.RunEnd

// finishRun is [harness.Finish].
func finishRun(runErr error, l *loop, text *textSink, start time.Time, emit func(Event), end runEnd) error {
	return harness.Finish(runErr, l, text, start, emit, end)
}

// interrupted is [harness.Interrupted].
func interrupted(ctx context.Context, err error, emit func(Event)) error {
	return harness.Interrupted(ctx, err, emit)
}

// withRunTimeout is [harness.WithRunTimeout].
func withRunTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return harness.WithRunTimeout(ctx, d)
}

// unlessQuiet is [harness.UnlessQuiet].
func unlessQuiet(w io.Writer, quiet bool) io.Writer { return harness.UnlessQuiet(w, quiet) }

// deferOnAsk is [harness.DeferOnAsk].
func deferOnAsk(onAsk string, pol *policy.Policy, noSession bool) string {
	return harness.DeferOnAsk(onAsk, pol, noSession)
}

// abortOnAsk is [harness.AbortOnAsk].
func abortOnAsk(onAsk string, pol *policy.Policy, noSession bool) string {
	return harness.AbortOnAsk(onAsk, pol, noSession)
}

// newHooks is [harness.NewHooks].
func newHooks(lc *config.Loaded, ce childEnv, root, sessionID string, sess *sessionLog, emit func(Event), rt runTools) *hooks.Runner {
	return harness.NewHooks(lc, ce, root, sessionID, sess, emit, rt)
}
