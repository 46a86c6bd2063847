package run

import (
	"io"

	"github.com/rubichan/rubichan/run/events"
)

// runSinks are the sinks of one exec run, each fed every event: stdout's
// (the text sink, or with --output json or stream-json the JSON sink),
// stderr's activity lines, and the session log once it is open.
type runSinks struct {
	text *textSink // writes nothing when js is set: stdout is the JSON sink's
	act  *activitySink
	js   *jsonSink   // nil: text output
	sess *sessionLog // nil until [runSinks.started]; nil records nothing
	// notes is where the policy loader writes its notes: stderr (nothing
	// with --quiet), and the JSON sink's notices.
	notes io.Writer
}

// newRunSinks builds the sinks of a run; stop learns a failed write on
// stdout, which ends the run.
func newRunSinks(cfg execConfig, js *jsonSink, stdout, stderr io.Writer, env environment, stop func(error)) *runSinks {
	s := &runSinks{js: js, notes: stderr}
	if js != nil {
		s.text = newTextSink(io.Discard, true)
	} else {
		s.text = newTextSink(stdout, cfg.Output == outputFinal)
	}
	s.text.terminal = isTerminal(stdout)
	s.text.onError = stop
	s.act = newActivitySink(stderr, cfg.Quiet, cfg.Verbose, colorEnabled(cfg.Color, isTerminal(stderr), env.lookupEnv))
	s.act.red = newRedactor(cfg.secrets(env))
	if cfg.Quiet {
		s.notes = io.Discard
	}
	if js != nil {
		js.onError, js.thinking, js.red = stop, cfg.IncludeThinking, s.act.red
		s.notes = &noticeWriter{w: s.notes, js: js}
	}
	return s
}

// emit hands ev to every sink.
func (s *runSinks) emit(ev Event) {
	if s.js != nil {
		s.js.handle(ev)
	} else {
		s.text.handle(ev)
	}
	s.act.handle(ev)
	s.sess.handle(ev)
}

// sessionID is the id the session log is named by: the JSON sink's,
// which its events carry; "" for a new one.
func (s *runSinks) sessionID() string {
	if s.js == nil {
		return ""
	}
	return s.js.sessionID
}

// started records the session log, now open, and tells the JSON sink
// the run begins.
func (s *runSinks) started(sess *sessionLog, init events.Init) {
	s.sess = sess
	if s.js != nil {
		s.js.setSession(sess.Path())
		s.js.init(init)
	}
}
