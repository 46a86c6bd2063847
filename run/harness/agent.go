package harness

import (
	"context"
	"fmt"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/telemetry"
)

// agentOptions makes what the run's agent is built from: the spilled
// stdin, if any, opened read-only for the file tools; the approver; the
// tools behind the policy; the system prompt; the limits and the model
// client on the run's traffic; and it starts serving the run's sub-queries
// until ctx ends. It returns the system prompt's parts for the session.
// The caller adds the seams that need the session log (the answers, the
// hooks, the verifiers, the asker) and builds the agent.
func (r *Run) agentOptions(ctx context.Context, s Settings, env Env, secrets []string, emit func(agent.Event), tel *telemetry.Run) (agent.Options, agent.Client, []session.PromptPart, error) {
	ws, pol, sp := r.Workspace, r.Policy, r.Input.Spill
	spillDir := ""
	if sp != nil {
		spillDir = sp.Dir
		if err := ws.AddRoot(spillDir, false); err != nil {
			return agent.Options{}, nil, nil, fmt.Errorf("run: open spilled stdin: %w", err)
		}
	}
	r.Approver = NewApprover(pol, ws, spillDir, s.LineMode)
	parts, err := input.SystemPromptParts(input.PromptOptions{
		Root: ws.Root(), Now: env.Today(), Replace: s.System.Replace, Append: s.System.Append, NoContextFiles: s.System.NoContextFiles,
		Readable: pol.ReadFilter(), Subqueries: (sp != nil || s.Subqueries.Announce) && !s.Subqueries.Off, LineMode: s.LineMode,
	})
	if err != nil {
		return agent.Options{}, nil, nil, err
	}
	// The tools first: the approver learns the bash tool's variables
	// before anything, a sub-query among them, is judged.
	bs := s.BashSettings()
	bs.CallEnv = tel.Env // each command joins its execute_tool span
	tools := BuildTools(ws, r.Approver, bs, env, r.Tools)
	r.Tools.Queries.Serve(ctx, NewSubqueries(s.SubqueryConfig(), ws, r.Approver.Judge, r.Budget, r.Traffic, emit))
	lim := s.Limits()
	onAsk := agent.OnAsk{Mode: agent.AskDeny}
	if why := DeferOnAsk(s.OnAsk, pol, s.Session.Off); why != "" {
		onAsk = agent.OnAsk{Mode: agent.AskDefer, Why: why}
	} else if why := AbortOnAsk(s.OnAsk, pol, s.Session.Off); why != "" {
		onAsk = agent.OnAsk{Mode: agent.AskAbort, Why: why}
	}
	return agent.Options{
		Model: s.Provider.Model, System: input.JoinParts(parts), Tools: tools,
		Limits:   agent.Limits{MaxTurns: lim.MaxTurns, MaxToolCalls: lim.MaxToolCalls, MaxDenials: pol.MaxDenials(), Timeout: lim.Timeout},
		Parallel: lim.ParallelToolCalls,
		Budget:   r.Budget, Retry: llm.DefaultRetryPolicy(), Clock: r.Traffic.Clock,
		Compact: CompactFor(s, s.Provider.Model, emit),
		Judge:   r.Approver.Judge, AskedFacts: PendingFacts, OnAsk: onAsk, Preview: PreviewDiff,
		Redact: agent.NewRedactor(secrets), Emit: emit, Around: aroundOf(tel),
		Heartbeat: agent.Heartbeat{First: env.HeartbeatFirst()},
	}, NewProviderClient(s.Provider, StreamLimits(s.Config), tel.Client(r.Traffic.HTTPClient)), parts, nil
}

// CompactFor is the agent's compaction at model (a chat's /model changes
// it), its summary opened with the session format's preface, which a
// resume recognises (see [session.SummaryPreface]).
func CompactFor(s Settings, model string, emit func(agent.Event)) agent.Compact {
	c := CompactSettings(s.Config, model, s.NoCompact, emit)
	c.Preface = session.SummaryPreface
	return c
}
