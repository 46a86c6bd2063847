package sink

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/session"
)

// SessionHeader is what the first line of a session (or the "run" line of
// a resumed one) records about the run.
type SessionHeader struct {
	Start      time.Time
	Workspace  string
	Provider   string
	API        string // the provider's API: anthropic or openai
	Model      string
	Policy     string // the policy's name: a file or the built-in default
	PolicyFile string
	Prompt     string // the run's own prompt
	System     []session.PromptPart
	JSONSchema json.RawMessage // --json-schema, compact; nil without one

	// A resumed run's line: its number, the session it was forked from,
	// and the approvals it answers.
	Run         int
	ForkedFrom  string
	Approve     []string
	DenyPending bool
}

// SessionLog turns a run's events into session lines: the header or run
// line, then one line per event except text deltas, the conversation as
// the model is sent it, then a closing line with the summary.
//
// A nil *SessionLog is valid and records nothing. It is not safe for
// concurrent use; the runner calls it from one goroutine.
type SessionLog struct {
	w     *session.Writer
	notes io.Writer // the path, in the closing summary area; io.Discard when quiet
	now   func() time.Time
	api   string
	model string
	build Build
	ended bool
	// atClose: the path is named once, by Close, after the last run
	// (line mode); saved: a run's closing line was synced.
	atClose, saved bool
}

// SessionOptions say where a new session goes and what it must hide.
type SessionOptions struct {
	Dir     string // the directory; "" when none is known
	File    string // --session-file: this file instead of one in Dir
	ID      string // the new session's id (--session-id, else the JSON sink's); "": a fresh one
	Secrets []string
	Warn    io.Writer
	Notes   io.Writer
	Now     func() time.Time // nil: time.Now
	Build   Build            // the binary's build, in every header and run line
	// NoteAtClose names the file once, when the log is closed, instead
	// of after each run (line mode runs once per line).
	NoteAtClose bool
}

// WriterOptions are the session writer's options: the secrets it hides
// and where it warns.
func (opt SessionOptions) WriterOptions() session.Options {
	return session.Options{Secrets: agent.NewRedactor(opt.Secrets).Secrets(), Warn: opt.Warn}
}

// OpenSession creates the session file and writes its header. A failure is
// a warning on opt.Warn and a nil log: the run goes on without a session.
// (A named session that exists is refused before the run, by the command layer.)
func OpenSession(opt SessionOptions, h SessionHeader) *SessionLog {
	warn := opt.Warn
	if warn == nil {
		warn = io.Discard
	}
	if opt.Dir == "" && opt.File == "" {
		fmt.Fprintln(warn, "rubichan: warning: no session log: neither $XDG_STATE_HOME nor $HOME is set (use --session-dir or --no-session)")
		return nil
	}
	w, err := createSession(opt, h.Start)
	if err != nil {
		fmt.Fprintf(warn, "rubichan: warning: no session log: %v\n", err)
		return nil
	}
	s := newSessionLog(w, opt, h)
	h.Run = 1
	s.w.Write(s.header(h, session.IDOf(w.Path())))
	s.writeSystem(h.System)
	return s
}

// NewSessionID returns a fresh session id (see [session.NewID]); the JSON
// sink's events carry it before the session file exists.
func NewSessionID(start time.Time) string {
	id, _ := session.NewID(start) // crypto/rand does not fail
	return id
}

func createSession(opt SessionOptions, start time.Time) (*session.Writer, error) {
	st := session.Store{Dir: opt.Dir}
	switch {
	case opt.File != "":
		if err := os.MkdirAll(filepath.Dir(opt.File), 0o700); err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
		return session.Create(opt.File, opt.WriterOptions())
	case opt.ID != "":
		if err := st.Make(); err != nil {
			return nil, err
		}
		return session.Create(st.Path(opt.ID), opt.WriterOptions())
	}
	return st.CreateNew(start, opt.WriterOptions())
}

func newSessionLog(w *session.Writer, opt SessionOptions, h SessionHeader) *SessionLog {
	s := &SessionLog{w: w, notes: opt.Notes, now: opt.Now, api: h.API, model: h.Model, build: opt.Build, atClose: opt.NoteAtClose}
	if s.notes == nil {
		s.notes = io.Discard
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// ResumeLog starts a resumed run's lines in the session w holds.
func ResumeLog(w *session.Writer, opt SessionOptions, h SessionHeader) *SessionLog {
	s := newSessionLog(w, opt, h)
	l := s.header(h, "")
	l.Type = session.TypeRun
	s.w.Write(l)
	s.writeSystem(h.System)
	return s
}

// Path returns the session file's path, or "" for a nil log.
func (s *SessionLog) Path() string {
	if s == nil {
		return ""
	}
	return s.w.Path()
}

// Handle records one event. The closing event writes the last line and
// names the file on the notes writer.
func (s *SessionLog) Handle(ev agent.Event) {
	if s == nil || s.ended {
		return
	}
	rec := s.record(ev)
	if rec == nil {
		return
	}
	s.w.Write(rec)
	if ev.Kind == agent.EventTurnDone {
		s.ended = true
		if s.w.Sync() == nil {
			s.saved = true
			if !s.atClose {
				fmt.Fprintf(s.notes, "session saved to %s\n", s.w.Path())
			}
		}
	}
}

// Close ends the log: it syncs and closes the file and releases its lock.
// A log that never got its closing line stays as it is, every line whole.
func (s *SessionLog) Close() error {
	if s == nil {
		return nil
	}
	err := s.w.Close()
	if err == nil && s.atClose && s.saved {
		fmt.Fprintf(s.notes, "session saved to %s\n", s.w.Path())
	}
	return err
}

// header is the first line of a session, or a resumed run's line: the
// run's identity, without its key.
func (s *SessionLog) header(h SessionHeader, id string) *session.Line {
	bi := s.build
	l := &session.Line{
		Type: session.TypeHeader, Time: session.Stamp(h.Start), ID: id, Run: h.Run, PID: os.Getpid(),
		Version: bi.Version, Commit: bi.Commit, Modified: bi.Modified, GoVersion: bi.Go, Workspace: h.Workspace, Provider: h.Provider, API: h.API, Model: h.Model,
		Policy: h.Policy, PolicyFile: h.PolicyFile, ForkedFrom: h.ForkedFrom, Approve: h.Approve, DenyPending: h.DenyPending,
		PromptBytes: session.Ptr(len(h.Prompt)), Prompt: session.Ptr(h.Prompt), JSONSchema: h.JSONSchema,
	}
	if id != "" {
		l.Format = session.Format
	}
	return l
}

// writeSystem records the run's system prompt: its parts and the hash of
// the whole, as sent.
func (s *SessionLog) writeSystem(parts []session.PromptPart) {
	if len(parts) == 0 {
		return
	}
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	s.w.Write(&session.Line{Type: session.TypeSystem, Time: session.Stamp(s.now()),
		Hash: promptHash(strings.Join(texts, "\n\n")), Parts: parts})
}

// record is the line for one event, or nil for events the log skips: text
// deltas (each finished message is recorded whole).
func (s *SessionLog) record(ev agent.Event) *session.Line {
	l := &session.Line{Time: session.Stamp(s.now()), Turn: ev.Turn}
	switch ev.Kind {
	case agent.EventTextDelta, agent.EventThinkingDelta:
		return nil
	case agent.EventNotice:
		l.Type, l.Text = session.TypeNotice, session.Ptr(ev.Text)
	case agent.EventTurnStart:
		l.Type = session.TypeTurn
	case agent.EventMessageDone:
		l.Type, l.Text = session.TypeMessage, session.Ptr(ev.Text)
		if u := ev.Usage; u != nil {
			l.Usage = &session.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheCreationTokens}
		}
	case agent.EventHistory:
		if ev.Message == nil {
			return nil
		}
		l.Type, l.Content = session.TypeUser, session.Blocks(ev.Message.Content)
		if ev.Message.Role == llm.RoleAssistant {
			l.Type, l.API, l.Model = session.TypeAssistant, s.api, s.model
		}
	case agent.EventStreamCut:
		l.Type = session.TypeStreamCut
	case agent.EventRetry:
		l.Type = session.TypeRetry
		if r := ev.Retry; r != nil {
			l.Attempt, l.WaitMS, l.Reason = r.Attempt, session.Ptr(r.Wait.Milliseconds()), r.Reason
		}
	case agent.EventToolCall, agent.EventToolAllowed, agent.EventToolDenied, agent.EventToolResult:
		if !toolLine(l, ev) {
			return nil
		}
	case agent.EventHook:
		l.Type = "hook"
		if h := ev.Hook; h != nil {
			l.Name, l.Event, l.Tool, l.Decision, l.Reason = h.Name, h.Event, h.Tool, h.Decision, h.Reason
			l.ExitCode, l.DurationMS = h.ExitCode, session.Ptr(h.Duration.Milliseconds())
		}
	case agent.EventCompaction:
		CompactionLine(l, ev.Compaction)
	case agent.EventSubquery:
		SubqueryLine(l, ev.Subquery)
	case agent.EventLimit:
		l.Type, l.Text = session.TypeLimit, session.Ptr(ev.Text)
	case agent.EventError:
		l.Type = session.TypeError
		if ev.Err != nil {
			l.Error = ev.Err.Error()
		}
	case agent.EventTurnDone:
		l.Type, l.Turn = session.TypeEnd, 0
		addSummary(l, ev.Summary)
	default:
		l.Type = strings.ToLower(ev.Kind.String())
	}
	return l
}

// toolLine fills l from an event about a tool call: the call, the policy's
// decision, the result. It returns false when the event makes no line.
func toolLine(l *session.Line, ev agent.Event) bool {
	switch ev.Kind {
	case agent.EventToolCall:
		l.Type = session.TypeToolCall
		addTool(l, ev.Tool)
		if ev.Tool != nil && len(ev.Tool.Input) > 0 {
			l.Input = ev.Tool.Input
		}
	case agent.EventToolAllowed:
		l.Type, l.Decision = session.TypeDecision, "allow"
		addTool(l, ev.Tool)
		if a := ev.Allow; a != nil {
			l.Rule, l.Fact, l.Reason = a.Rule, a.Fact, a.Reason
		}
	case agent.EventToolDenied:
		l.Type, l.Decision = session.TypeDecision, "deny"
		addTool(l, ev.Tool)
		if d := ev.Denial; d != nil {
			l.Rule, l.Fact, l.Reason = d.Rule, d.Fact, d.Reason
			if d.Pending {
				l.Decision = "pending"
			}
		}
	case agent.EventToolResult:
		if ev.Result != nil && ev.Result.NotRun { // the decision line says it
			return false
		}
		l.Type = session.TypeToolResult
		addTool(l, ev.Tool)
		addResult(l, ev.Result)
	}
	return true
}

func addTool(l *session.Line, t *agent.ToolCallInfo) {
	if t != nil {
		l.ID, l.Name = t.ID, t.Name
	}
}

// addResult records a result for a reader: the conversation's "user" line
// holds it whole; this one keeps the first [session.ContentMax] bytes.
func addResult(l *session.Line, res *agent.ToolResultInfo) {
	if res == nil {
		return
	}
	l.IsError, l.ExitCode = session.Ptr(res.IsError), res.ExitCode
	l.DurationMS = session.Ptr(res.Duration.Milliseconds())
	content, cut := session.CapUTF8(res.Content, session.ContentMax)
	l.Output = session.Ptr(content)
	if cut {
		l.ContentBytes, l.ContentTruncated = len(res.Content), true
	}
	l.Diff, l.DiffTruncated = session.CapUTF8(res.Diff, session.DiffMax)
	l.Changed = append([]string(nil), res.Changed...)
}

func addSummary(l *session.Line, sum *agent.Summary) {
	if sum == nil {
		return
	}
	l.ExitCode = session.Ptr(sum.ExitCode)
	l.Status = sum.Status
	if l.Status == "" {
		l.Status = statusOf(sum.ExitCode, len(sum.Pending) > 0)
	}
	l.Turns, l.ToolCalls, l.Denials = session.Ptr(sum.Turns), session.Ptr(sum.ToolCalls), sum.Denials
	l.InputTokens, l.OutputTokens = session.Ptr(sum.InputTokens), session.Ptr(sum.OutputTokens)
	l.ElapsedMS = session.Ptr(sum.Elapsed.Milliseconds())
	if sum.CostKnown && !math.IsNaN(sum.CostUSD) && !math.IsInf(sum.CostUSD, 0) {
		l.CostUSD = session.Ptr(sum.CostUSD)
	}
	l.Pending = SessionPendings(sum.Pending)
	l.TraceID = sum.TraceID
}

// sessionPending is p as the session file records it.
func sessionPending(p agent.Pending) session.Pending {
	s := session.Pending{ID: p.ID, Tool: p.Tool, Fact: p.Fact, Rule: p.Rule, Diff: p.Diff, Input: p.Input}
	for _, f := range p.Facts {
		s.Facts = append(s.Facts, session.PendingFact(f))
	}
	return s
}

// SessionPendings is [sessionPending] for each of ps.
func SessionPendings(ps []agent.Pending) []session.Pending {
	var out []session.Pending
	for _, p := range ps {
		out = append(out, sessionPending(p))
	}
	return out
}

// statusOf names how a run ended from its exit code.
func statusOf(code int, pending bool) string {
	switch {
	case code == exit.OK:
		return session.StatusDone
	case code == exit.Policy && pending:
		return session.StatusDeferred
	case code == exit.Policy:
		return session.StatusStopped
	case code == exit.Limit:
		return session.StatusLimit
	case code == 130 || code == 143:
		return session.StatusInterrupted
	}
	return session.StatusFailed
}

// NextRun starts the lines of the next run of a chat in the same session:
// a "run" line, as a resumed run writes.
func (s *SessionLog) NextRun(h SessionHeader, run int) {
	if s == nil {
		return
	}
	s.ended = false
	l := s.header(h, "")
	l.Type, l.Run = session.TypeRun, run
	s.w.Write(l)
}

// Reopen lets the log record what happens between two runs of a chat
// (a /clear, a /compact) after the run's closing line.
func (s *SessionLog) Reopen() {
	if s != nil {
		s.ended = false
	}
}

// Clear records that the conversation was cleared (/clear in a chat);
// a nil log records nothing.
func (s *SessionLog) Clear() {
	if s != nil {
		s.w.Write(&session.Line{Type: session.TypeClear, Time: session.Stamp(time.Now())})
	}
}

// promptHash is the hash a session records of a system prompt.
func promptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}
