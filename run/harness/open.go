package harness

import (
	"context"
	"io"
	"time"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
	"github.com/rubichan/rubichan/run/skills"
	"github.com/rubichan/rubichan/run/structured"
	"github.com/rubichan/rubichan/run/telemetry"
	"github.com/rubichan/rubichan/toolkit"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// Run is what a headless run and a line-mode chat open before their first
// model request, in the same order and by the same code: the budget, the
// sandbox, patch mode, the policy and workspace, the session plan, the
// input, the model traffic, the tools, the session log, the hooks and the
// agent. Only what drives the agent differs: one prompt taken to its end
// (exec), or a line at a time (chat). [Open] sets its fields; callers read
// them and never write them.
type Run struct {
	Budget    *agent.Budget
	Sandbox   sandbox.State
	Patch     *PatchMode // nil without --patch
	Workspace *toolkit.Workspace
	Policy    *policy.Policy
	Approver  *Approver
	Plan      *SessionPlan
	Input     *input.Input
	Traffic   *Traffic
	Tools     Tools
	Agent     *agent.Agent
	Session   *sink.SessionLog
	// Verifier is the --verify check, one of the agent's verifiers; nil
	// without --verify.
	Verifier *Verifier
	// Structured holds the --json-schema check; nil without one, and in
	// line mode always there (/schema fills it).
	Structured *structured.Slot
	// Skills are the skills found; Offered are in the system prompt.
	Skills skills.Set

	sinks   *sink.Fan
	closers []func() // run in reverse order by Close
}

// OpenOptions are what [Open] takes besides the run's Settings: the
// process, the sinks the caller made, and the front end's part.
type OpenOptions struct {
	Stdin          io.Reader // exec's standard input; a chat reads its arguments only (Settings.LineMode)
	Stdout, Stderr io.Writer
	Env            Env
	Sinks          *sink.Fan
	Start          time.Time  // when the run began, for the session header
	Build          sink.Build // the binary's build, for the session and the init event
	// NewAsker, when set, returns the asker of calls that need approval
	// (a chat's terminal), given the run's approver; nil: none.
	NewAsker func(ap *Approver) agent.Asker
	// Telemetry is the run's OpenTelemetry export ([StartTelemetry]): its
	// spans wrap the agent's operations and the commands the run starts
	// get their span's TRACEPARENT. nil: off.
	Telemetry *telemetry.Run
}

// Close releases what Open opened, last first.
func (r *Run) Close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
}

func (r *Run) onClose(f func()) { r.closers = append(r.closers, f) }

// WorkDir is the run's root: the workspace, or patch mode's copy of it.
func (r *Run) WorkDir() string { return r.Workspace.Root() }

// Open opens a run. On an error what it opened is closed again;
// otherwise the caller closes the run.
func Open(ctx context.Context, s Settings, o OpenOptions) (r *Run, err error) {
	r = &Run{sinks: o.Sinks}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	notice := func(t string) { o.Sinks.Emit(agent.Event{Kind: agent.EventNotice, Text: t}) }
	if r.Budget, err = StartSettings(s.Config, s.Provider.Model, notice); err != nil {
		return r, err
	}
	if r.Sandbox, err = StartSandbox(s, o.Env, notice); err != nil {
		return r, err
	}
	if err := CheckAllowAll(s.Config, r.Sandbox); err != nil {
		return r, err
	}
	dir, err := r.enterPatchMode(ctx, s, o, notice)
	if err != nil {
		return r, err
	}
	// The skills, before the policy, which grants reads of their folders.
	// (in the run's root: patch mode's copy has the workspace's skills)
	inRoot := s
	inRoot.Dir = dir
	if r.Skills, err = DiscoverSkills(inRoot, o.Env); err != nil {
		return r, err
	}
	for _, n := range r.Skills.Notes {
		notice(n)
	}
	ps := s.PolicySource(dir)
	ps.Reads = SkillGrants(r.Skills, dir)
	if r.Workspace, r.Policy, err = OpenWorkspace(ps, o.Sinks.Notes(), notice); err != nil {
		return r, err
	}
	r.onClose(func() { r.Workspace.Close() })
	secrets := s.Secrets(o.Env, dir)
	if r.Plan, err = PlanSession(s.Session, s.Session.SessionDir(o.Env), secrets, r.WorkDir(), o.Stderr); err != nil {
		return r, err
	}
	r.onClose(r.Plan.Close)
	// The run's own records are guarded from the tools, as the policy file is.
	r.Policy = r.Policy.WithGuarded(
		policy.Guarded{Path: r.Plan.LogPath(s.Session, o.Sinks.SessionID(), o.Start), What: "the run's session log"},
		policy.Guarded{Path: s.Traffic.Record, What: "the run's cassette"},
		policy.Guarded{Path: s.Traffic.ReplayFile, What: "the run's cassette"},
		policy.Guarded{Path: binaryInWorkspace(r.WorkDir()), What: "the running rubichan binary"},
	)
	if AllowAll(s.Config) {
		r.Policy = r.Policy.WithAllowAll()
	}
	if err := r.readInput(ctx, s, o, notice); err != nil {
		return r, err
	}
	return r, r.openAgent(ctx, s, o, secrets)
}

// enterPatchMode starts --patch, if asked, and returns the run's root:
// from here on the run works in the private copy. Its closer writes the
// patch of a run that ended before the agent (its (empty) patch; after
// [Finish] it does nothing) and removes the copy.
func (r *Run) enterPatchMode(ctx context.Context, s Settings, o OpenOptions, notice func(string)) (string, error) {
	pm, err := StartPatchMode(ctx, s, s.ChildDropEnv(), o.Env, o.Stdout)
	if err != nil || pm == nil {
		r.onClose(func() { pm.Close() })
		return s.Dir, err
	}
	r.Patch = pm
	r.onClose(func() {
		if pi, err := pm.Write(true); err == nil && pi != nil {
			notice(PatchLine(pi))
		}
		pm.Close()
	})
	return pm.Root(), nil
}

// readInput reads the first prompt: exec's arguments, prompt file and
// standard input; a chat's arguments alone (its standard input is its
// lines), which may be none.
func (r *Run) readInput(ctx context.Context, s Settings, o OpenOptions, notice func(string)) error {
	opt := s.InputOptions(notice)
	if s.LineMode {
		opt.NoStdin, opt.Optional = true, true
	}
	in, err := input.ReadContext(ctx, o.Stdin, opt)
	if err != nil {
		return Interrupted(ctx, err, o.Sinks.Emit)
	}
	r.Input = in
	r.onClose(func() { in.Close() })
	o.Sinks.GitHub().Begin(s.GitHubRun(in.Text, o.Sinks.Redactor())) // a no-op off GitHub Actions
	return nil
}

// openAgent opens the traffic, the tools (with the MCP servers'), the
// session log, the hooks and the agent, in that order: the agent is built
// whole, with the seams that need the session log. The sinks learn the
// run started last.
func (r *Run) openAgent(ctx context.Context, s Settings, o OpenOptions, secrets []string) error {
	emit := o.Sinks.Emit
	notice := func(t string) { emit(agent.Event{Kind: agent.EventNotice, Text: t}) }
	root := r.WorkDir()
	var err error
	if r.Traffic, err = OpenTraffic(s.Traffic, s.Provider, root, o.Env.Today(), secrets); err != nil {
		return err
	}
	rt, closeTools, err := OpenTools(r.Sandbox, s, o.Env, root, MCPStarter(ctx, s, withTrace(s.ChildEnv(o.Env), o.Telemetry), root, notice))
	if err != nil {
		return err
	}
	r.Tools = rt
	r.onClose(closeTools)
	// The system prompt, the tools and the compaction settings (whose
	// notice precedes a warning of the session log on stderr).
	opts, client, parts, err := r.agentOptions(ctx, s, o.Env, secrets, emit, o.Telemetry)
	if err != nil {
		r.Traffic.Finish(err, notice)
		return err
	}
	if p, ok := SkillPrompt(r.Skills, notice); ok {
		parts = append(parts, p)
		opts.System = input.JoinParts(parts)
	}
	// The session's path is shown on stderr (never the JSON stream), unless quiet.
	r.Session = r.Plan.Open(s.Session, sink.SessionOptions{Secrets: secrets, Warn: o.Stderr, Notes: UnlessQuiet(o.Stderr, s.Quiet), Build: o.Build, NoteAtClose: s.LineMode}, sink.SessionHeader{
		Start: o.Start, Workspace: root, Provider: s.Provider.Name, API: s.Provider.Type, Model: s.Provider.Model,
		Policy: r.Policy.Name(), PolicyFile: r.Policy.File(), Prompt: r.Input.Text, System: parts, JSONSchema: s.SchemaRaw(),
	})
	r.onClose(func() { r.Session.Close() })
	opts.Answers = r.Plan.Answers()
	if h := NewHooks(s.Config, withTrace(s.ChildEnv(o.Env), o.Telemetry), root, r.sessionID(), r.Session, emit, rt); h != nil {
		opts.Hooks = h
	}
	r.Verifier = NewVerifier(s.Verify(), withTrace(s.ChildEnv(o.Env), o.Telemetry), root, rt, emit)
	opts.Verifiers = r.Verifier.Verifiers()
	r.Structured = withStructuredOutput(s, &opts, notice)
	if o.NewAsker != nil {
		opts.Ask = o.NewAsker(r.Approver)
	}
	opts.Emit = SkillActivations(r.Skills, root, emit)
	r.Agent = agent.New(client, opts)
	init := WithMCP(InitEvent(s.InitSettings(), o.Build, root, r.Agent.ToolNames(), r.Policy, r.Sandbox), rt.MCP, r.Agent.ToolSpecs())
	init.Skills = InitSkills(r.Skills)
	o.Sinks.Started(r.Session, init)
	o.Telemetry.SetConversation(r.conversationID())
	return nil
}

// conversationID is the run's session id for its trace
// (gen_ai.conversation.id): the session file's, else the JSON stream's.
func (r *Run) conversationID() string {
	if p := r.Session.Path(); p != "" {
		return session.IDOf(p)
	}
	return r.sinks.SessionID()
}

// sessionID is the run's session id as the sinks will know it once they
// learn the session log (see [sink.Fan.Started]): the JSON stream's, or
// the log's own when it has a file; "" without the JSON stream (the
// hooks then take the log's).
func (r *Run) sessionID() string {
	id := r.sinks.SessionID()
	if p := r.Session.Path(); p != "" && id != "" {
		id = session.IDOf(p)
	}
	return id
}
