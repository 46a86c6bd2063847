package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
)

// SessionPlan is the session a run writes, settled before the run makes
// any request: a new one (opened later, once the prompt is known) or a
// resumed one, locked and loaded.
type SessionPlan struct {
	store session.Store
	file  string // --session-file, absolute

	w          *session.Writer  // the resumed (or forked) session, locked
	loaded     *session.Session // its contents
	forkedFrom string
	answers    map[string]agent.Approval
	keepOpen   bool   // the last run deferred its open calls
	id         string // a new session's id, settled before the tools exist (see [SessionPlan.LogPath])
}

// LogPath settles the file the run's session log goes to, before the
// tools exist, so that the policy can guard it: the resumed session, the
// --session-file, or the store's file of the new session's id (--session-id,
// else id, the JSON events' id, else a fresh one). It is "" when the run
// keeps no log or no directory is known.
func (p *SessionPlan) LogPath(f SessionSettings, id string, start time.Time) string {
	p.id = f.ID
	if p.id == "" {
		p.id = id
	}
	if p.id == "" {
		p.id = sink.NewSessionID(start)
	}
	switch {
	case f.Off:
		return ""
	case p.w != nil:
		return p.w.Path()
	case p.file != "":
		return p.file
	case p.store.Dir == "":
		return ""
	}
	return p.store.Path(p.id)
}

// Close releases a resumed session the run never took over.
func (p *SessionPlan) Close() {
	if p != nil && p.w != nil {
		p.w.Close()
		p.w = nil
	}
}

// PlanSession settles the session f chooses for a run in the workspace
// root, with dir the session directory (see [SessionSettings.SessionDir]);
// secrets are kept out of a resumed session's new lines and warnings go
// to stderr. Every problem — a session that is missing, unreadable, in
// use, or an id that exists — is a usage error (exit 2), before any
// request.
func PlanSession(f SessionSettings, dir string, secrets []string, root string, stderr io.Writer) (*SessionPlan, error) {
	p := &SessionPlan{store: session.Store{Dir: dir}}
	if f.Off {
		return p, nil
	}
	if f.File != "" {
		abs, err := filepath.Abs(f.File)
		if err != nil {
			return nil, exit.Usagef("--session-file: %v", err)
		}
		p.file = abs
		if _, err := os.Stat(abs); err == nil {
			return nil, exit.Usagef("--session-file %s exists: to add a run to it use --resume %s", abs, abs)
		}
	}
	if f.ID != "" {
		if p.store.Dir == "" {
			return nil, exit.Usagef("--session-id: no state directory is known (set $XDG_STATE_HOME or $HOME, or use --session-dir)")
		}
		if _, err := os.Stat(p.store.Path(f.ID)); err == nil {
			return nil, exit.Usagef("session %q exists in %s: to add a run to it use --resume %s", f.ID, p.store.Dir, f.ID)
		}
	}
	if !f.Resuming() {
		return p, nil
	}
	path, err := f.resumePath(p.store, root)
	if err != nil {
		return nil, err
	}
	if err := p.take(f, path, secrets, stderr); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// SessionDir is --session-dir made absolute, else the default directory.
func (f SessionSettings) SessionDir(env Env) string {
	if f.Dir == "" {
		home, _ := env.LookupEnv("HOME")
		return session.DefaultDir(env.LookupEnv, home)
	}
	if abs, err := filepath.Abs(f.Dir); err == nil {
		return abs
	}
	return f.Dir
}

// resumePath finds the session --resume or --continue names.
func (f SessionSettings) resumePath(st session.Store, root string) (string, error) {
	if f.Continue {
		path, err := st.Newest(root)
		if err != nil {
			return "", exit.Usagef("--continue: %v", err)
		}
		if path == "" {
			return "", exit.Usagef("--continue: no session of workspace %s in %s", root, st.Dir)
		}
		return path, nil
	}
	path, err := st.Resolve(f.Resume)
	if err != nil {
		return "", exit.Usagef("--resume: %v", err)
	}
	return path, nil
}

// take locks and loads the session at path (a copy of it with --fork) and
// checks the run's answers against its pending calls.
func (p *SessionPlan) take(f SessionSettings, path string, secrets []string, warn io.Writer) error {
	opt := sink.SessionOptions{Secrets: secrets, Warn: warn}.WriterOptions()
	var err error
	if f.Fork {
		p.forkedFrom = session.IDOf(path)
		p.w, err = p.fork(f, path, opt)
	} else {
		p.w, err = session.Append(path, opt)
	}
	if err != nil {
		var inUse *session.InUseError
		if errors.As(err, &inUse) {
			return exit.Usagef("%v; wait for it to end, or use --fork to go on from a copy", inUse)
		}
		return exit.Usagef("--resume: %v", err)
	}
	p.loaded, err = session.Load(p.w.Path())
	if err != nil {
		if f.Fork {
			os.Remove(p.w.Path())
		}
		return exit.Usagef("--resume: %v", err)
	}
	return p.checkAnswers(f)
}

// fork copies the session at path into a new session and opens the copy.
func (p *SessionPlan) fork(f SessionSettings, path string, opt session.Options) (*session.Writer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1] // whole lines only
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	var h session.Line
	if err := json.Unmarshal(first, &h); err != nil || h.Type != session.TypeHeader {
		return nil, fmt.Errorf("session %s: %w", path, session.ErrFormat)
	}
	var w *session.Writer
	switch {
	case p.file != "":
		w, err = session.Create(p.file, opt)
	case f.ID != "":
		if err = p.store.Make(); err == nil {
			w, err = session.Create(p.store.Path(f.ID), opt)
		}
	default:
		w, err = p.store.CreateNew(time.Now(), opt)
	}
	if err != nil {
		return nil, err
	}
	h.ID, h.ForkedFrom = session.IDOf(w.Path()), session.IDOf(path)
	w.Write(&h)
	if err := w.WriteRaw(rest); err != nil {
		w.Close()
		os.Remove(w.Path())
		return nil, err
	}
	return w, nil
}

// checkAnswers turns --approve and --deny-pending into answers for the
// pending calls. Nothing runs twice: a call that is not pending (already
// answered, or never made) is refused, as is a session with pending calls
// and no answer.
func (p *SessionPlan) checkAnswers(f SessionSettings) error {
	pending := p.loaded.Deferred()
	p.keepOpen = len(pending) > 0
	id := session.IDOf(p.w.Path())
	ids := make([]string, len(pending))
	for i, c := range pending {
		ids[i] = c.ID
	}
	p.answers = map[string]agent.Approval{}
	switch {
	case len(f.Approve) > 0:
		for _, a := range f.Approve {
			if a == "all" && len(pending) > 0 {
				for _, c := range pending {
					p.answers[c.ID] = AnswerOf(c)
				}
				continue
			}
			i := slices.Index(ids, a)
			if i < 0 {
				return exit.Usagef("--approve %s: %s", a, notPending(id, a, ids))
			}
			p.answers[a] = AnswerOf(pending[i])
		}
	case f.DenyPending:
		if len(pending) == 0 {
			return exit.Usagef("--deny-pending: session %s has no pending calls", id)
		}
		for _, c := range pending {
			p.answers[c.ID] = agent.Approval{}
		}
	case len(pending) > 0:
		return exit.Usagef("session %s has %d pending call(s) (%s): answer with --approve CALL_ID|all or --deny-pending", id, len(pending), strings.Join(ids, ", "))
	}
	return nil
}

func notPending(id, call string, ids []string) string {
	if len(ids) == 0 {
		return fmt.Sprintf("session %s has no pending calls (%s was answered already, or never made)", id, call)
	}
	return fmt.Sprintf("call %s is not pending in session %s (pending: %s)", call, id, strings.Join(ids, ", "))
}

// Conversation is the resumed conversation for a model of the provider
// api, and the calls left open for this run to answer.
func (p *SessionPlan) Conversation(api string) ([]llm.Message, []llm.Block) {
	if p.loaded == nil {
		return nil, nil
	}
	return p.loaded.Conversation(api, p.keepOpen)
}

// Open starts the run's lines: a new session's header, or a resumed run's
// "run" line. It returns nil with --no-session.
func (p *SessionPlan) Open(f SessionSettings, opt sink.SessionOptions, h sink.SessionHeader) *sink.SessionLog {
	if f.Off {
		return nil
	}
	if p.w == nil {
		opt.Dir, opt.File, opt.ID = p.store.Dir, p.file, p.id
		return sink.OpenSession(opt, h)
	}
	h.Run = len(p.loaded.Runs) + 1
	h.ForkedFrom = p.forkedFrom
	h.Approve = slices.Sorted(mapKeys(p.answers, true))
	h.DenyPending = f.DenyPending
	w := p.w
	p.w = nil // the log owns it now
	return sink.ResumeLog(w, opt, h)
}

func mapKeys(m map[string]agent.Approval, approved bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k, a := range m {
			if a.Approve == approved && !yield(k) {
				return
			}
		}
	}
}

// Resuming reports whether the run continues an earlier session.
func (f SessionSettings) Resuming() bool { return f.Resume != "" || f.Continue }

// Answering reports whether the run answers deferred calls, which makes
// its own prompt optional.
func (f SessionSettings) Answering() bool { return len(f.Approve) > 0 || f.DenyPending }

// Loaded is the resumed session's contents; nil for a new session.
func (p *SessionPlan) Loaded() *session.Session { return p.loaded }

// Answers are the run's answers to the resumed session's pending calls.
func (p *SessionPlan) Answers() map[string]agent.Approval { return p.answers }

// StoreDir is the session directory; "" when none is known.
func (p *SessionPlan) StoreDir() string { return p.store.Dir }

// AnswerOf is the answer that approves pending call p: the facts it
// lists, or its one fact.
func AnswerOf(p session.Pending) agent.Approval {
	a := agent.Approval{Approve: true, Legacy: len(p.Facts) == 0}
	for _, f := range p.Asked() {
		a.Facts = append(a.Facts, agent.PendingFact(f))
	}
	return a
}
