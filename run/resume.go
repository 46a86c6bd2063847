package run

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
	"github.com/rubichan/rubichan/run/session"
)

// sessionFlags are the exec flags that choose the run's session.
type sessionFlags struct {
	SessionDir  string // --session-dir; "": the XDG state directory
	NoSession   bool
	SessionID   string   // --session-id: name the new session
	SessionFile string   // --session-file: write the session to this file
	Resume      string   // --resume ID|PATH
	Continue    bool     // --continue: resume the newest session of the workspace
	Fork        bool     // --fork: resume into a copy
	Approve     []string // --approve CALL_ID|all
	DenyPending bool
}

// resuming reports whether the run continues an earlier session.
func (f sessionFlags) resuming() bool { return f.Resume != "" || f.Continue }

// answering reports whether the run answers deferred calls, which makes
// its own prompt optional.
func (f sessionFlags) answering() bool { return len(f.Approve) > 0 || f.DenyPending }

// validate checks the session flags against each other (exit 2).
func (f sessionFlags) validate(onAsk string) error {
	switch {
	case f.NoSession && (f.resuming() || f.SessionID != "" || f.SessionFile != ""):
		return usagef("--no-session cannot be used with --resume, --continue, --session-id or --session-file")
	case f.NoSession && onAsk == "defer":
		return usagef("--on-ask defer needs a session to resume; it cannot be used with --no-session")
	case f.Resume != "" && f.Continue:
		return usagef("--resume and --continue cannot be used together")
	case f.Fork && !f.resuming():
		return usagef("--fork needs --resume or --continue")
	case (f.SessionID != "" || f.SessionFile != "") && f.resuming() && !f.Fork:
		return usagef("--session-id and --session-file name a new session; to add to an existing one use --resume alone (or --fork to copy it)")
	case f.SessionID != "" && f.SessionFile != "":
		return usagef("--session-id and --session-file cannot be used together")
	case f.answering() && !f.resuming():
		return usagef("--approve and --deny-pending need --resume or --continue")
	case len(f.Approve) > 0 && f.DenyPending:
		return usagef("--approve and --deny-pending cannot be used together")
	}
	if f.SessionID != "" {
		if err := session.CheckID(f.SessionID); err != nil {
			return usagef("--session-id: %v", err)
		}
	}
	return nil
}

// sessionPlan is the session a run writes, settled before the run makes
// any request: a new one (opened later, once the prompt is known) or a
// resumed one, locked and loaded.
type sessionPlan struct {
	store session.Store
	file  string // --session-file, absolute

	w          *session.Writer  // the resumed (or forked) session, locked
	loaded     *session.Session // its contents
	forkedFrom string
	answers    map[string]answer
	keepOpen   bool   // the last run deferred its open calls
	id         string // a new session's id, settled before the tools exist (see [sessionPlan.logPath])
}

// logPath settles the file the run's session log goes to, before the
// tools exist, so that the policy can guard it: the resumed session, the
// --session-file, or the store's file of the new session's id (--session-id,
// else id, the JSON events' id, else a fresh one). It is "" when the run
// keeps no log or no directory is known.
func (p *sessionPlan) logPath(f sessionFlags, id string, start time.Time) string {
	p.id = f.SessionID
	if p.id == "" {
		p.id = id
	}
	if p.id == "" {
		p.id = newSessionID(start)
	}
	switch {
	case f.NoSession:
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

// close releases a resumed session the run never took over.
func (p *sessionPlan) close() {
	if p != nil && p.w != nil {
		p.w.Close()
		p.w = nil
	}
}

// planSession settles the session f chooses for a run in the workspace
// root, with dir the session directory (see [sessionFlags.sessionDir]);
// secrets are kept out of a resumed session's new lines and warnings go
// to stderr. Every problem — a session that is missing, unreadable, in
// use, or an id that exists — is a usage error (exit 2), before any
// request.
func planSession(f sessionFlags, dir string, secrets []string, root string, stderr io.Writer) (*sessionPlan, error) {
	p := &sessionPlan{store: session.Store{Dir: dir}}
	if f.NoSession {
		return p, nil
	}
	if f.SessionFile != "" {
		abs, err := filepath.Abs(f.SessionFile)
		if err != nil {
			return nil, usagef("--session-file: %v", err)
		}
		p.file = abs
		if _, err := os.Stat(abs); err == nil {
			return nil, usagef("--session-file %s exists: to add a run to it use --resume %s", abs, abs)
		}
	}
	if f.SessionID != "" {
		if p.store.Dir == "" {
			return nil, usagef("--session-id: no state directory is known (set $XDG_STATE_HOME or $HOME, or use --session-dir)")
		}
		if _, err := os.Stat(p.store.Path(f.SessionID)); err == nil {
			return nil, usagef("session %q exists in %s: to add a run to it use --resume %s", f.SessionID, p.store.Dir, f.SessionID)
		}
	}
	if !f.resuming() {
		return p, nil
	}
	path, err := f.resumePath(p.store, root)
	if err != nil {
		return nil, err
	}
	if err := p.take(f, path, secrets, stderr); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// sessionDir is --session-dir made absolute, else the default directory.
func (f sessionFlags) sessionDir(env environment) string {
	if f.SessionDir == "" {
		home, _ := env.LookupEnv("HOME")
		return session.DefaultDir(env.LookupEnv, home)
	}
	if abs, err := filepath.Abs(f.SessionDir); err == nil {
		return abs
	}
	return f.SessionDir
}

// resumePath finds the session --resume or --continue names.
func (f sessionFlags) resumePath(st session.Store, root string) (string, error) {
	if f.Continue {
		path, err := st.Newest(root)
		if err != nil {
			return "", usagef("--continue: %v", err)
		}
		if path == "" {
			return "", usagef("--continue: no session of workspace %s in %s", root, st.Dir)
		}
		return path, nil
	}
	path, err := st.Resolve(f.Resume)
	if err != nil {
		return "", usagef("--resume: %v", err)
	}
	return path, nil
}

// take locks and loads the session at path (a copy of it with --fork) and
// checks the run's answers against its pending calls.
func (p *sessionPlan) take(f sessionFlags, path string, secrets []string, warn io.Writer) error {
	opt := sessionOptions{Secrets: secrets, Warn: warn}.WriterOptions()
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
			return usagef("%v; wait for it to end, or use --fork to go on from a copy", inUse)
		}
		return usagef("--resume: %v", err)
	}
	p.loaded, err = session.Load(p.w.Path())
	if err != nil {
		if f.Fork {
			os.Remove(p.w.Path())
		}
		return usagef("--resume: %v", err)
	}
	return p.checkAnswers(f)
}

// fork copies the session at path into a new session and opens the copy.
func (p *sessionPlan) fork(f sessionFlags, path string, opt session.Options) (*session.Writer, error) {
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
	case f.SessionID != "":
		if err = p.store.Make(); err == nil {
			w, err = session.Create(p.store.Path(f.SessionID), opt)
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
func (p *sessionPlan) checkAnswers(f sessionFlags) error {
	pending := p.loaded.Deferred()
	p.keepOpen = len(pending) > 0
	id := session.IDOf(p.w.Path())
	ids := make([]string, len(pending))
	for i, c := range pending {
		ids[i] = c.ID
	}
	p.answers = map[string]answer{}
	switch {
	case len(f.Approve) > 0:
		for _, a := range f.Approve {
			if a == "all" && len(pending) > 0 {
				for _, c := range pending {
					p.answers[c.ID] = answerOf(c)
				}
				continue
			}
			i := slices.Index(ids, a)
			if i < 0 {
				return usagef("--approve %s: %s", a, notPending(id, a, ids))
			}
			p.answers[a] = answerOf(pending[i])
		}
	case f.DenyPending:
		if len(pending) == 0 {
			return usagef("--deny-pending: session %s has no pending calls", id)
		}
		for _, c := range pending {
			p.answers[c.ID] = answer{}
		}
	case len(pending) > 0:
		return usagef("session %s has %d pending call(s) (%s): answer with --approve CALL_ID|all or --deny-pending", id, len(pending), strings.Join(ids, ", "))
	}
	return nil
}

func notPending(id, call string, ids []string) string {
	if len(ids) == 0 {
		return fmt.Sprintf("session %s has no pending calls (%s was answered already, or never made)", id, call)
	}
	return fmt.Sprintf("call %s is not pending in session %s (pending: %s)", call, id, strings.Join(ids, ", "))
}

// conversation is the resumed conversation for a model of the provider
// api, and the calls left open for this run to answer.
func (p *sessionPlan) conversation(api string) ([]llm.Message, []llm.Block) {
	if p.loaded == nil {
		return nil, nil
	}
	return p.loaded.Conversation(api, p.keepOpen)
}

// open starts the run's lines: a new session's header, or a resumed run's
// "run" line. It returns nil with --no-session.
func (p *sessionPlan) open(f sessionFlags, opt sessionOptions, h sessionHeader) *sessionLog {
	if f.NoSession {
		return nil
	}
	if p.w == nil {
		opt.Dir, opt.File, opt.ID = p.store.Dir, p.file, p.id
		return openSession(opt, h)
	}
	h.Run = len(p.loaded.Runs) + 1
	h.ForkedFrom = p.forkedFrom
	h.Approve = slices.Sorted(mapKeys(p.answers, true))
	h.DenyPending = f.DenyPending
	w := p.w
	p.w = nil // the log owns it now
	return resumeLog(w, opt, h)
}

func mapKeys(m map[string]answer, approved bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k, a := range m {
			if a.Approve == approved && !yield(k) {
				return
			}
		}
	}
}
