package run

import (
	"io"
	"sync"

	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/ghactions"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
)

// runSinks are the sinks of one exec run, each fed every event: stdout's
// (the text sink, or with --output json or stream-json the JSON sink),
// stderr's activity lines, and the session log once it is open. emit and
// started may be called from several goroutines (the notice that stdin is
// late comes from a timer): mu serialises them, so each sink sees one event
// at a time.
type runSinks struct {
	mu   sync.Mutex
	text *textSink // writes nothing when js is set: stdout is the JSON sink's
	act  *activitySink
	js   *jsonSink       // nil: text output
	sess *sessionLog     // nil until [runSinks.started]; nil records nothing
	gh   *githubReporter // nil: not under GitHub Actions
	// notes is where the policy loader writes its notes: stderr (nothing
	// with --quiet), and the JSON sink's notices.
	notes io.Writer
	// observe, when set, sees every event after the sinks (line mode
	// keeps the changes its tools made).
	observe func(Event)
	// stdout is the text sink's writer under GitHub Actions, whose held
	// line start [runSinks.close] writes; nil otherwise.
	stdout *ghactions.Writer
	// text and thinking redact the deltas of the model's answer and
	// reasoning before any sink sees them: a key the model server echoes
	// reaches stdout in no output mode, also split across deltas.
	textRed, thinkRed streamRedactor
	red               *redactor // the run's secrets
}

// close writes what the sinks still hold back.
func (s *runSinks) close() {
	if s.stdout != nil {
		s.stdout.Flush()
	}
}

// newRunSinks builds the sinks of a run; stop learns a failed write on
// stdout, which ends the run.
func newRunSinks(cfg execConfig, js *jsonSink, stdout, stderr io.Writer, env environment, stop func(error)) *runSinks {
	s := &runSinks{js: js, notes: stderr}
	textOut := stdout
	if cfg.Patch == "-" {
		textOut = stderr // stdout carries the patch alone
	}
	terminal := isTerminal(textOut)
	if cfg.github != nil && cfg.Patch != "-" {
		// Under GitHub Actions the model's text cannot hold a workflow
		// command (stderr is neutralised by runMain); a patch on
		// stdout stays byte for byte.
		s.gh, s.stdout = cfg.github, ghactions.NewWriter(textOut)
		textOut = s.stdout
	} else if cfg.github != nil {
		s.gh = cfg.github
	}
	if js != nil {
		s.text = sink.NewText(io.Discard, sink.TextOptions{Final: true, Terminal: terminal, OnError: stop})
	} else {
		s.text = sink.NewText(textOut, sink.TextOptions{Final: cfg.Output == outputFinal, Terminal: terminal, OnError: stop})
	}
	s.red = newRedactor(cfg.secrets(env))
	act := sink.ActivityOptions{Quiet: cfg.Quiet, Verbose: cfg.Verbose,
		Colors: colorEnabled(cfg.Color, isTerminal(stderr), env.lookupEnv), Redact: s.red}
	if s.gh != nil && cfg.Verbose {
		act.Group = s.gh.Group
	}
	s.act = sink.NewActivity(stderr, act)
	s.textRed.Red, s.thinkRed.Red = s.red, s.red
	if cfg.Quiet {
		s.notes = io.Discard
	}
	if js != nil {
		js.Begin(sink.JSONRun{Thinking: cfg.IncludeThinking, Redact: s.red, OnError: stop})
		s.notes = &sink.NoticeWriter{W: s.notes, JS: js}
	}
	return s
}

// emit hands ev to every sink, the model's text redacted (see
// [runSinks.redacted]).
func (s *runSinks) emit(ev Event) {
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
func (s *runSinks) redacted(ev Event, f func(Event)) {
	flushThinking := func() {
		if held := s.thinkRed.Flush(); held != "" {
			f(Event{Kind: EventThinkingDelta, Turn: ev.Turn, Text: held})
		}
	}
	switch ev.Kind {
	case EventTextDelta:
		flushThinking()
		if ev.Text = s.textRed.Push(ev.Text); ev.Text != "" {
			f(ev)
		}
		return
	case EventThinkingDelta:
		if ev.Text = s.thinkRed.Push(ev.Text); ev.Text != "" {
			f(ev)
		}
		return
	case EventNotice:
		f(ev)
		return
	case EventStreamCut:
		// The answer so far is void and comes again: what waits,
		// the start of a key perhaps, is dropped.
		s.textRed.Drop()
		s.thinkRed.Drop()
	}
	flushThinking()
	if held := s.textRed.Flush(); held != "" {
		f(Event{Kind: EventTextDelta, Turn: ev.Turn, Text: held})
	}
	if ev.Kind == EventMessageDone {
		ev.Text = s.red.Redact(ev.Text)
	}
	f(ev)
}

// dispatch hands ev to every sink.
func (s *runSinks) dispatch(ev Event) {
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

// sessionID is the id the session log is named by: the JSON sink's,
// which its events carry; "" for a new one.
func (s *runSinks) sessionID() string {
	if s.js == nil {
		return ""
	}
	return s.js.SessionID()
}

// started records the session log, now open, and tells the JSON sink
// the run begins.
func (s *runSinks) started(sess *sessionLog, init events.Init) {
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
