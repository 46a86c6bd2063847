package run

import (
	"context"
	"io"
	"time"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// runStack is what a headless run and a line-mode chat open before their
// first model request, in the same order and by the same code: the
// budget, the sandbox, patch mode, the policy and workspace, the session
// plan, the input, the model traffic, the tools, the session log, the
// hooks and the loop. Only what drives the loop differs: one prompt taken
// to its end (exec), or a line at a time (chat).
type runStack struct {
	sinks  *runSinks
	budget *Budget
	box    sandbox.State
	patch  *patchMode
	ws     *toolkit.Workspace
	pol    *policy.Policy
	ap     *approver
	plan   *sessionPlan
	in     *input
	tr     *traffic
	rt     runTools
	loop   *loop
	sess   *sessionLog
	// verifier is the --verify check, one of the loop's verifiers; nil
	// without --verify.
	verifier *verifier
	parts    []session.PromptPart

	closers []func() // run in reverse order by close
}

// stackInput says where the stack's first prompt comes from: exec reads
// standard input as well; a chat takes its arguments only.
type stackInput struct {
	stdin io.Reader
	chat  bool
	start time.Time // when the run began, for the session header
	// newAsker, when set, returns the asker of calls that need approval
	// (a chat's terminal), given the run's approver; nil: none.
	newAsker func(ap *approver) agent.Asker
}

// close releases what openStack opened, last first.
func (s *runStack) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

func (s *runStack) defer_(f func()) { s.closers = append(s.closers, f) }

// openStack opens a run's stack. On an error what it opened is closed
// again; otherwise the caller closes the stack.
func openStack(ctx context.Context, cfg *execConfig, src stackInput, stdout, stderr io.Writer, env environment, sinks *runSinks) (st *runStack, err error) {
	st = &runStack{sinks: sinks}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	emit, notes := sinks.emit, sinks.notes
	notice := func(s string) { emit(Event{Kind: EventNotice, Text: s}) }
	if st.budget, err = startSettings(cfg.Settings, cfg.Model, notice); err != nil {
		return st, err
	}
	if st.box, err = startSandbox(*cfg, env, notice); err != nil {
		return st, err
	}
	if err := checkAllowAll(cfg.Settings, st.box); err != nil {
		return st, err
	}
	pm, leavePatch, err := enterPatchMode(ctx, cfg, env, stdout, notice)
	if err != nil {
		return st, err
	}
	st.patch = pm
	st.defer_(leavePatch)
	if st.ws, st.pol, err = openWorkspace(cfg.policySource(), notes, notice); err != nil {
		return st, err
	}
	st.defer_(func() { st.ws.Close() })
	if st.plan, err = planSession(cfg.sessionFlags, cfg.sessionDir(env), cfg.secrets(env), st.ws.Root(), stderr); err != nil {
		return st, err
	}
	st.defer_(st.plan.Close)
	// The run's own records are guarded from the tools, as the policy file is.
	st.pol = st.pol.WithGuarded(
		policy.Guarded{Path: st.plan.LogPath(cfg.sessionFlags.settings(), st.sinks.sessionID(), src.start), What: "the run's session log"},
		policy.Guarded{Path: cfg.Record, What: "the run's cassette"},
		policy.Guarded{Path: cfg.Replay, What: "the run's cassette"},
	)
	if allowAll(cfg.Settings) {
		st.pol = st.pol.WithAllowAll()
	}
	if err := st.readInput(ctx, *cfg, src, notice); err != nil {
		return st, err
	}
	return st, st.openLoop(ctx, *cfg, env, stderr, src)
}

// readInput reads the first prompt: exec's arguments, prompt file and
// standard input; a chat's arguments alone (its standard input is its
// lines), which may be none.
func (st *runStack) readInput(ctx context.Context, cfg execConfig, src stackInput, notice func(string)) error {
	opt := cfg.inputOptions(notice)
	if src.chat {
		opt.NoStdin, opt.Optional = true, true
	}
	in, err := readInputContext(ctx, src.stdin, opt)
	if err != nil {
		return interrupted(ctx, err, st.sinks.emit)
	}
	st.in = in
	st.defer_(func() { in.Close() })
	cfg.github.Begin(githubRun(cfg, in.Text, st.sinks.red)) // a no-op off GitHub Actions
	return nil
}

// openLoop opens the traffic, the tools (with the MCP servers'), the
// session log, the hooks and the loop, in that order: the loop is built
// whole, with the seams that need the session log. The sinks learn the
// run started last.
func (st *runStack) openLoop(ctx context.Context, cfg execConfig, env environment, stderr io.Writer, src stackInput) error {
	emit := st.sinks.emit
	notice := func(s string) { emit(Event{Kind: EventNotice, Text: s}) }
	var err error
	if st.tr, err = openTraffic(cfg.trafficSettings(), cfg.Resolved, st.ws.Root(), env.today(), cfg.secrets(env)); err != nil {
		return err
	}
	rt, closeTools, err := openRunTools(st.box, cfg, env, st.ws.Root(), cfg.mcpStarter(ctx, env, st.ws.Root(), notice))
	if err != nil {
		return err
	}
	st.rt = rt
	st.defer_(closeTools)
	// The system prompt, the tools and the compaction settings (whose
	// notice precedes a warning of the session log on stderr).
	lc, client, ap, parts, err := execLoopConfig(ctx, cfg, st.ws, st.pol, st.in.Spill, st.budget, env, st.tr, emit, rt)
	if err != nil {
		st.tr.Finish(err, notice)
		return err
	}
	st.ap, st.parts = ap, parts
	// The session's path is shown on stderr (never the JSON stream), unless quiet.
	st.sess = openPlanned(st.plan, cfg.sessionFlags, sessionOptions{Secrets: cfg.secrets(env), Warn: stderr, Notes: unlessQuiet(stderr, cfg.Quiet), NoteAtClose: cfg.chat}, sessionHeader{
		Start: src.start, Workspace: st.ws.Root(), Provider: cfg.Provider, API: cfg.Resolved.Type, Model: cfg.Model,
		Policy: st.pol.Name(), PolicyFile: st.pol.File(), Prompt: st.in.Text, System: parts,
	})
	st.defer_(func() { st.sess.Close() })
	lc.Answers = st.plan.Answers()
	lc.Hooks = asHooks(newHooks(cfg.Settings, cfg.childEnv(env), st.ws.Root(), st.sessionID(), st.sess, emit, rt))
	st.verifier = newVerifier(cfg.verify(), cfg.childEnv(env), st.ws.Root(), rt, emit)
	lc.Verifiers = st.verifier.Verifiers()
	if src.newAsker != nil {
		lc.Ask = src.newAsker(ap)
	}
	st.loop = newLoop(lc, client, ap.Judge, emit)
	st.sinks.started(st.sess, withMCP(initEvent(cfg.initSettings(), st.ws.Root(), st.loop.ToolNames(), st.pol, st.box), rt.MCP, st.loop.ToolSpecs()))
	return nil
}

// sessionID is the run's session id as the sinks will know it once they
// learn the session log (see [runSinks.started]): the JSON stream's, or
// the log's own when it has a file; "" without the JSON stream (the
// hooks then take the log's).
func (st *runStack) sessionID() string {
	id := st.sinks.sessionID()
	if p := st.sess.Path(); p != "" && id != "" {
		id = session.IDOf(p)
	}
	return id
}
