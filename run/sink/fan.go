package sink

import (
	"io"
	"os"
	"sync"

	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/ghactions"
	"github.com/rubichan/rubichan/run/session"
	"golang.org/x/term"
)

// Options are how a run's events are rendered: built by the command
// layer from the parsed flags.
type Options struct {
	// JSON is the sink of --output json or stream-json, made before the
	// arguments were parsed (it writes the result of a usage error);
	// nil: text on stdout.
	JSON  *JSON
	Final bool // --output final: the last message alone, at the end
	// Structured: --json-schema, whose answer alone stdout holds in the
	// text and final formats.
	Structured bool
	Thinking   bool // --include-thinking
	Quiet      bool // --quiet
	Verbose    bool // --verbose
	// Color is --color: always, never or auto (stderr is a terminal,
	// TERM is not dumb, NO_COLOR is unset or empty; LookupEnv reads them).
	Color     string
	LookupEnv func(string) (string, bool)
	// TextToStderr: stdout carries the patch alone (--patch -), so the
	// model's text goes to stderr.
	TextToStderr bool
	GitHub       *GitHub         // nil: not under GitHub Actions
	Redact       *agent.Redactor // the run's secrets
	// Observe, when set, sees every event after the sinks (line mode
	// keeps the changes its tools made).
	Observe func(agent.Event)
	// Stop learns a failed write on stdout, which ends the run.
	Stop func(error)
	// AllowAll says --allow-all is on: the closing summary says so.
	AllowAll bool
	// LineMode: a person reads stderr line by line, so a failed
	// command's last lines are shown without Verbose.
	LineMode bool
}

// Fan is the sinks of one run, each fed every event: stdout's (the text
// sink, or with --output json or stream-json the JSON sink), stderr's
// activity lines, the GitHub reporter, and the session log once it is
// open. Emit and Started may be called from several goroutines (the
// notice that stdin is late comes from a timer): mu serialises them, so
// each sink sees one event at a time.
type Fan struct {
	mu   sync.Mutex
	text *Text // writes nothing when js is set: stdout is the JSON sink's
	act  *Activity
	js   *JSON       // nil: text output
	sess *SessionLog // nil until [Fan.Started]; nil records nothing
	gh   *GitHub     // nil: not under GitHub Actions
	// notes is where the policy loader writes its notes: stderr (nothing
	// with --quiet), and the JSON sink's notices.
	notes   io.Writer
	observe func(agent.Event)
	// stdout is the text sink's writer under GitHub Actions, whose held
	// line start [Fan.Close] writes; nil otherwise.
	stdout *ghactions.Writer
	// text and thinking redact the deltas of the model's answer and
	// reasoning before any sink sees them: a key the model server echoes
	// reaches stdout in no output mode, also split across deltas.
	textRed, thinkRed StreamRedactor
	red               *agent.Redactor // the run's secrets
	last              string          // the last assistant message, redacted
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// New builds the sinks of a run writing to stdout and stderr.
func New(stdout, stderr io.Writer, o Options) *Fan {
	s := &Fan{js: o.JSON, notes: stderr, observe: o.Observe, red: o.Redact}
	textOut := stdout
	if o.TextToStderr {
		textOut = stderr // stdout carries the patch alone
	}
	terminal := IsTerminal(textOut)
	if o.GitHub != nil && !o.TextToStderr {
		// Under GitHub Actions the model's text cannot hold a workflow
		// command (stderr is neutralised by runMain); a patch on
		// stdout stays byte for byte.
		s.gh, s.stdout = o.GitHub, ghactions.NewWriter(textOut)
		textOut = s.stdout
	} else if o.GitHub != nil {
		s.gh = o.GitHub
	}
	if s.js != nil {
		s.text = NewText(io.Discard, TextOptions{Final: true, Terminal: terminal, OnError: o.Stop})
	} else {
		s.text = NewText(textOut, TextOptions{Final: o.Final, Structured: o.Structured, Terminal: terminal, OnError: o.Stop})
	}
	lookupEnv := o.LookupEnv
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	act := ActivityOptions{Quiet: o.Quiet, Verbose: o.Verbose, AllowAll: o.AllowAll, FailedTail: o.LineMode,
		Colors: ColorEnabled(o.Color, IsTerminal(stderr), lookupEnv), Redact: s.red}
	if s.gh != nil && o.Verbose {
		act.Group = s.gh.Group
	}
	s.act = NewActivity(stderr, act)
	s.textRed.Red, s.thinkRed.Red = s.red, s.red
	if o.Quiet {
		s.notes = io.Discard
	}
	if s.js != nil {
		s.js.Begin(JSONRun{Thinking: o.Thinking, Redact: s.red, OnError: o.Stop})
		s.notes = &NoticeWriter{W: s.notes, JS: s.js}
	}
	return s
}

// Close writes what the sinks still hold back.
func (s *Fan) Close() {
	if s.stdout != nil {
		s.stdout.Flush()
	}
}

// Notes is where the run's notes go (see [Options.Quiet]): stderr, or
// nowhere, and the JSON sink's notices.
func (s *Fan) Notes() io.Writer { return s.notes }

// Text is the text sink; with JSON output it writes nothing.
func (s *Fan) Text() *Text { return s.text }

// LastMessage is the text of the run's last assistant message, redacted
// ("" before the first), as --output final prints it.
func (s *Fan) LastMessage() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// JSON is the JSON sink, nil with text output.
func (s *Fan) JSON() *JSON { return s.js }

// Redactor holds the run's secrets.
func (s *Fan) Redactor() *agent.Redactor { return s.red }

// GitHub is the GitHub Actions reporter, nil when not under Actions (its
// methods do nothing on nil).
func (s *Fan) GitHub() *GitHub { return s.gh }

// Emit hands ev to every sink, the model's text redacted (see
// [Fan.redacted]).
func (s *Fan) Emit(ev agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redacted(ev, s.dispatch)
}

// redacted passes ev on to f with the run's secrets redacted from the
// model's text and reasoning. A delta's end that may begin a secret waits
// for the next delta; the first text delta passes on what the reasoning
// holds back, and any other event but a notice (which may come from
// another goroutine at any time) what both hold back, as deltas of their
// own, so the order of the output is kept; a stream cut drops it. The
// whole text of a message is redacted too (--output final shows it).
func (s *Fan) redacted(ev agent.Event, f func(agent.Event)) {
	flushThinking := func() {
		if held := s.thinkRed.Flush(); held != "" {
			f(agent.Event{Kind: agent.EventThinkingDelta, Turn: ev.Turn, Text: held})
		}
	}
	switch ev.Kind {
	case agent.EventTextDelta:
		flushThinking()
		if ev.Text = s.textRed.Push(ev.Text); ev.Text != "" {
			f(ev)
		}
		return
	case agent.EventThinkingDelta:
		if ev.Text = s.thinkRed.Push(ev.Text); ev.Text != "" {
			f(ev)
		}
		return
	case agent.EventNotice, agent.EventRetry:
		// A retry's text continues what was shown (the engine holds
		// back what it repeats), so the held start of a key stays held.
		f(ev)
		return
	case agent.EventStreamCut:
		// The retried answer departed and comes whole: what waits,
		// the start of a key perhaps, is dropped.
		s.textRed.Drop()
		s.thinkRed.Drop()
	}
	flushThinking()
	if held := s.textRed.Flush(); held != "" {
		f(agent.Event{Kind: agent.EventTextDelta, Turn: ev.Turn, Text: held})
	}
	if ev.Kind == agent.EventMessageDone {
		ev.Text = s.red.Redact(ev.Text)
	}
	f(ev)
}

// dispatch hands ev to every sink.
func (s *Fan) dispatch(ev agent.Event) {
	if ev.Kind == agent.EventMessageDone {
		s.last = ev.Text
	}
	if s.js != nil {
		s.js.Handle(ev)
	} else {
		s.text.Handle(ev)
	}
	s.act.Handle(ev)
	if s.gh != nil {
		s.gh.Handle(ev)
	}
	s.sess.Handle(ev)
	if s.observe != nil {
		s.observe(ev)
	}
}

// SessionID is the id the session log is named by: the JSON sink's,
// which its events carry; "" for a new one.
func (s *Fan) SessionID() string {
	if s.js == nil {
		return ""
	}
	return s.js.SessionID()
}

// Started records the session log, now open, and tells the JSON sink
// the run begins.
func (s *Fan) Started(sess *SessionLog, init events.Init) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sess = sess
	if s.gh != nil {
		s.gh.SetSession(sess.Path())
	}
	if s.js != nil {
		if p := sess.Path(); p != "" {
			// A named, resumed or forked session has its own id.
			s.js.SetSessionID(session.IDOf(p))
		}
		s.js.SetSession(sess.Path())
		s.js.Init(init)
	}
}
