package run

import (
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/toolkit"
)

// Transitional shims (issue 31, step 3a): the turn loop moved to
// [agent.Agent]; these names keep the files that have not moved yet
// (approve.go, chatask.go, exec.go, stack.go, the chat commands)
// compiling unchanged. The last step of the split deletes this file.

// The loop and its parts.
type (
	loop          = agent.Agent
	streamer      = agent.Client
	compactConfig = agent.Compact
	verdict       = agent.Verdict
	judge         = agent.Judge
)

// The kinds of [verdict].
const (
	verdictAllow = agent.VerdictAllow
	verdictDeny  = agent.VerdictDeny
	verdictAsk   = agent.VerdictAsk
)

// What [agent.Agent.CompactNow] did.
const (
	compactOff      = agent.CompactOff
	compactTooShort = agent.CompactTooShort
	compactNothing  = agent.CompactNothing
)

// loopConfig are the loop's inputs as the harness still gathers them
// (exec.go's execLoopConfig, stack.go); [newLoop] makes them the
// [agent.Options].
type loopConfig struct {
	Model        string
	System       string
	Tools        []toolkit.Tool
	MaxTurns     int
	MaxToolCalls int
	Parallel     int // read-only calls at once; 0: the engine's default
	MaxDenials   int
	AbortOnAsk   string // why a call that needs approval stops the run; "": it does not
	DeferOnAsk   string // why a call that needs approval is deferred; "": it is not
	Ask          agent.Asker
	Hooks        agent.Hooks
	Verifiers    []agent.Verifier
	Answers      map[string]answer
	Preview      func(call llm.Block, eff toolkit.Effects) string
	Timeout      time.Duration
	Budget       *Budget
	Retry        llm.RetryPolicy
	Clock        llm.Clock
	Redact       *redactor
	Compact      compactConfig
}

// newLoop builds the engine from cfg, judging calls with j (whose
// policy results [harness.AskedFacts] reads) and reporting to emit. Compaction
// opens its summary with the session format's preface.
func newLoop(cfg loopConfig, client streamer, j judge, emit func(Event)) *loop {
	onAsk := agent.OnAsk{Mode: agent.AskDeny}
	switch {
	case cfg.DeferOnAsk != "":
		onAsk = agent.OnAsk{Mode: agent.AskDefer, Why: cfg.DeferOnAsk}
	case cfg.AbortOnAsk != "":
		onAsk = agent.OnAsk{Mode: agent.AskAbort, Why: cfg.AbortOnAsk}
	}
	return agent.New(client, agent.Options{
		Model: cfg.Model, System: cfg.System, Tools: cfg.Tools,
		Limits:   agent.Limits{MaxTurns: cfg.MaxTurns, MaxToolCalls: cfg.MaxToolCalls, MaxDenials: cfg.MaxDenials, Timeout: cfg.Timeout},
		Parallel: cfg.Parallel,
		Budget:   cfg.Budget, Retry: cfg.Retry, Clock: cfg.Clock, Compact: withPreface(cfg.Compact),
		Judge: j, Answers: cfg.Answers, AskedFacts: pendingFacts, Ask: cfg.Ask, OnAsk: onAsk, Preview: cfg.Preview,
		Hooks: cfg.Hooks, Verifiers: cfg.Verifiers, Redact: cfg.Redact, Emit: emit,
	})
}

// withPreface is c with the session format's summary preface, which a
// resume recognises (see [session.SummaryPreface]).
func withPreface(c compactConfig) compactConfig {
	c.Preface = session.SummaryPreface
	return c
}
